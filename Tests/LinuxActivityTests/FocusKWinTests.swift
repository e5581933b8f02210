import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

/// The KWin focus source against a real headless KWin (`kwin_wayland --virtual`) running the Screen Time script
/// from `packaging/kwin-script`, with real wev clients. (foot dies of SIGFPE under headless KWin 5.27, so both
/// clients are wev: they share the class `wev` and are told apart by pid.)
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.kwinSkipReason)))
struct FocusKWinTests {
    static let scriptPath = FocusTestEnvironment.checkoutFile(
        "packaging/kwin-script/screentime-focus/contents/code/main.js")

    /// A running headless KWin with the source opened on its bus.
    final class Session {
        let processes = FocusTestProcesses()
        let user: FocusTestUser
        let runtimeDirectory: String
        var source: KWinFocusSource?
        private var busPids = ""
        /// The Wayland socket's name in the runtime directory.
        private(set) var waylandDisplay = "wayland-kwin"

        init() throws {
            guard let user = FocusTestUser.ensure() else { throw POSIXError(.EPERM) }
            self.user = user
            runtimeDirectory = try user.runtimeDirectory(in: processes)
        }

        /// Starts KWin, waits for its bus, opens the source (which loads the script) and for the Wayland socket.
        /// With `measuringIdle`, the source follows KWin's idle notifications (resolution 500 ms) and never asks
        /// `org.freedesktop.ScreenSaver`; with `throughWrapper`, KWin is started by `kwin_wayland_wrapper`, which
        /// serves the Wayland socket, as in a Plasma session.
        func start(measuringIdle: Bool = false, throughWrapper: Bool = false) throws -> KWinFocusSource {
            // The wrapper names the socket itself, the first free `wayland-N`.
            waylandDisplay = throughWrapper ? "wayland-0" : "wayland-kwin"
            // Debian's kwin_wayland carries file capabilities (cap_sys_nice); where they cannot be granted (a
            // container's bounding set), exec fails with EPERM. A copy has none, and root's (the source believes a
            // KWin only root can change).
            let folder = try processes.temporaryDirectory("stfocus-kwin")
            chmod(folder, 0o755)
            let program = folder + "/kwin_wayland"
            guard try processes.run("/bin/cp", ["/usr/bin/kwin_wayland", program]).status == 0 else {
                throw FocusSourceError(.connectionFailed, "cannot copy kwin_wayland to \(folder)")
            }
            try processes.start(
                asUser: user, "/bin/sh",
                [FocusTestEnvironment.script("kwin-session.sh"), runtimeDirectory, program]
                    + (throughWrapper ? ["/usr/bin/kwin_wayland_wrapper"] : []),
                environment: ["XDG_RUNTIME_DIR": runtimeDirectory], log: runtimeDirectory + "/kwin.log")
            let address = UserSessionBus.address(ofUserBusAt: runtimeDirectory + "/session-bus-socket", uid: user.uid)
            var lastError: FocusSourceError?
            _ = FocusTestEnvironment.waitUntil(timeout: .seconds(30)) {
                do throws(FocusSourceError) {
                    source = try KWinFocusSource(
                        busAddress: address, scriptPath: FocusKWinTests.scriptPath,
                        runtimeDirectory: measuringIdle ? runtimeDirectory : nil,
                        waylandDisplay: measuringIdle ? waylandDisplay : nil, asksScreenSaver: !measuringIdle,
                        idleResolution: .milliseconds(500))
                } catch {
                    lastError = error
                    usleep(200_000)
                }
                return source != nil
            }
            busPids = (try? String(contentsOfFile: runtimeDirectory + "/bus-pids", encoding: .utf8)) ?? ""
            guard let source else {
                throw lastError ?? FocusSourceError(.connectionFailed, "KWin did not come up")
            }
            let socket = runtimeDirectory + "/" + waylandDisplay
            guard FocusTestEnvironment.waitUntil(timeout: .seconds(30), { access(socket, F_OK) == 0 }) != nil else {
                throw POSIXError(.ETIMEDOUT)
            }
            return source
        }

        /// Starts a wev window and waits until the source reports it active.
        func openWindow() throws -> FocusTestChild {
            let client = try processes.start(
                asUser: user, "/usr/bin/wev", [],
                environment: ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay],
                log: runtimeDirectory + "/clients.log")
            _ = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                self.source?.current()?.window?.pid == ProcessID(client.pid)
            }
            return client
        }

        /// Closes the source, stops clients and KWin, then the session bus.
        func stop() {
            source?.close()
            processes.stopAll()
            for pid in busPids.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGTERM) }
        }
    }

    @Test("KWin loads the script over D-Bus; the script reports the active window's pid and resource class")
    func followsActiveWindow() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let session = try Session()
        defer { session.stop() }
        let focus = try session.start()
        // The script reports the active window (none yet) as soon as it starts.
        #expect(FocusTestEnvironment.waitUntil(timeout: .seconds(10)) { focus.current() != nil } != nil)
        #expect(focus.current()?.window == nil)

        let first = try session.openWindow()
        #expect(focus.current()?.window?.pid == ProcessID(first.pid))
        #expect(focus.current()?.window?.windowClass == "wev")
        print("kwin: first window \(String(describing: focus.current()?.window))")
        let second = try session.openWindow()
        #expect(focus.current()?.window?.pid == ProcessID(second.pid))
        session.processes.stop(second)
        #expect(FocusTestEnvironment.waitUntil { focus.current()?.window?.pid == ProcessID(first.pid) } != nil)
        print("kwin: statistics \(focus.statistics), idle \(String(describing: focus.current()?.idleTime))")
        #expect(focus.statistics.eventsReceived >= 4)
    }

    @Test("accounting: A 2 s, B 3 s, A 2 s (B opened, then closed) within 1 s per window")
    func accountingMatchesTruth() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let session = try Session()
        defer { session.stop() }
        let focus = try session.start()
        let first = try session.openWindow()
        var second: FocusTestChild?
        let totals = try FocusAccounting.run(
            source: focus, plan: [("A", .seconds(2)), ("B", .seconds(3)), ("A", .seconds(2))],
            key: { window in window.pid.map { String($0.rawValue) } }
        ) { name in
            if name == "B" {
                second = try session.openWindow()
            } else if let open = second {
                session.processes.stop(open)
                _ = FocusTestEnvironment.waitUntil { focus.current()?.window?.pid == ProcessID(first.pid) }
            }
        }
        print("kwin: accounted seconds by pid \(totals)")
        #expect(abs(totals[String(first.pid), default: 0] - 4) <= 1)
        #expect(abs(totals[second.map { String($0.pid) } ?? "", default: 0] - 3) <= 1)
    }

    @Test(
        "KWin's idle notifications give the idle time, growing without input, also on the socket its wrapper serves",
        arguments: [false, true])
    func measuresIdleFromKWin(throughWrapper: Bool) throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let session = try Session()
        defer { session.stop() }
        let focus = try session.start(measuringIdle: true, throughWrapper: throughWrapper)
        print("kwin idle: \(focus.idleProtocol ?? "none") \(focus.idleUnavailable ?? "")")
        #expect(
            ["ext_idle_notifier_v1", "org_kde_kwin_idle"].contains(focus.idleProtocol),
            "\(focus.idleUnavailable ?? "")")
        // Headless, with no input device: idle once the resolution passes, and more so after.
        #expect(FocusTestEnvironment.waitUntil(timeout: .seconds(10)) { focus.current() != nil } != nil)
        let idled = FocusTestEnvironment.waitUntil(timeout: .seconds(5)) {
            (focus.current()?.idleTime ?? .zero) >= .milliseconds(600)
        }
        #expect(idled != nil, "idle time \(String(describing: focus.current()?.idleTime))")
        let first = try #require(focus.current()?.idleTime)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try #require(focus.current()?.idleTime) >= first + .milliseconds(300))
    }
}
