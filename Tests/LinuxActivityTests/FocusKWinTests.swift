import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

/// The KWin focus source against a real headless KWin (`kwin_wayland --virtual`) running the Screen Time
/// script from `packaging/kwin-script`. Skipped where KWin is not installed (it is not on the CI image: the
/// kwin-wayland package pulls in most of Qt and Plasma's frameworks).
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.kwinSkipReason)))
struct FocusKWinTests {
    static let scriptPath: String = {
        var url = URL(fileURLWithPath: FocusTestEnvironment.scriptsDirectory)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("packaging/kwin-script/screentime-focus/contents/code/main.js").path
    }()

    @Test("KWin loads the script over D-Bus, the script reports to the sink, and the active window's pid and class")
    func followsActiveWindow() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        guard let user = FocusTestUser.ensure() else { throw POSIXError(.EPERM) }
        let runtime = try user.runtimeDirectory(in: processes)
        var source: KWinFocusSource?
        var busPids = ""
        defer {
            source?.close()
            busPids = (try? String(contentsOfFile: runtime + "/bus-pids", encoding: .utf8)) ?? busPids
            processes.stopAll()
            for pid in busPids.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGTERM) }
        }
        try processes.start(
            asUser: user, "/bin/sh", [FocusTestEnvironment.script("kwin-session.sh"), runtime],
            environment: ["XDG_RUNTIME_DIR": runtime], log: runtime + "/kwin.log")
        let address = UserSessionBus.address(ofUserBusAt: runtime + "/session-bus-socket", uid: user.uid)
        var lastError: FocusSourceError?
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(30)) {
            do throws(FocusSourceError) {
                source = try KWinFocusSource(busAddress: address, scriptPath: Self.scriptPath)
            } catch {
                lastError = error
                usleep(200_000)
            }
            return source != nil
        }
        let focus = try #require(source, "KWin did not come up: \(String(describing: lastError))")
        busPids = (try? String(contentsOfFile: runtime + "/bus-pids", encoding: .utf8)) ?? ""
        // The script reports the active window (none yet) as soon as it starts: the whole D-Bus path works.
        #expect(FocusTestEnvironment.waitUntil(timeout: .seconds(10)) { focus.current() != nil } != nil)
        #expect(focus.statistics.eventsReceived >= 1)
        print("kwin: script running, first report received: \(String(describing: focus.current()))")

        let socket = runtime + "/wayland-kwin"
        guard FocusTestEnvironment.waitUntil(timeout: .seconds(5), { access(socket, F_OK) == 0 }) != nil else {
            // Seen with Debian's KWin 5.27 in this VM: kwin_wayland --virtual runs and serves D-Bus but creates
            // no Wayland socket, so no client can open a window.
            print("kwin: window part skipped: kwin_wayland --virtual created no Wayland socket in \(runtime)")
            return
        }
        let terminal = try processes.start(
            asUser: user, "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"],
            environment: ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-kwin"],
            log: runtime + "/clients.log")
        // Not yet seen working here: in headless KWin 5.27 the foot window is never reported as activated
        // (the script's clientActivated does not fire). Kept as a known issue until it is understood.
        withKnownIssue("headless KWin 5.27 does not report the foot window as activated in this VM") {
            #expect(
                FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                    focus.current()?.window?.pid == ProcessID(terminal.pid)
                } != nil)
            #expect(focus.current()?.window?.windowClass == "st.focus.term")
        }
    }
}
