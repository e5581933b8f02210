import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

/// The GNOME Shell focus source against a real GNOME Shell 43 running headless with the Screen Time extension
/// (`packaging/gnome-shell-extension/legacy`), and real foot and wev Wayland clients.
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.gnomeShellSkipReason)))
struct FocusGnomeShellTests {
    static let extensionDirectory = FocusTestEnvironment.checkoutFile(
        "packaging/gnome-shell-extension/legacy/screentime-focus@screentime.org")

    /// A running headless gnome-shell, its session bus and the Wayland environment for clients.
    struct Shell {
        var user: FocusTestUser
        var runtimeDirectory: String
        var busAddress: String
        var compositor: FocusTestChild

        func startClient(_ executable: String, _ arguments: [String], in processes: FocusTestProcesses) throws
            -> FocusTestChild
        {
            try processes.start(
                asUser: user, executable, arguments,
                environment: ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": "wayland-gnome"],
                log: runtimeDirectory + "/clients.log")
        }

        /// Stops the clients, gnome-shell, then the two buses its script started (pids in `bus-pids`), and
        /// removes the runtime directory.
        func stop(_ processes: FocusTestProcesses) {
            let pids = (try? String(contentsOfFile: runtimeDirectory + "/bus-pids", encoding: .utf8)) ?? ""
            processes.stopAll()
            for pid in pids.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 {
                kill(pid, SIGTERM)
            }
        }
    }

    func startShell(_ processes: FocusTestProcesses) throws -> Shell {
        guard let user = FocusTestUser.ensure() else { throw POSIXError(.EPERM) }
        let runtime = try user.runtimeDirectory(in: processes)
        let compositor = try processes.start(
            asUser: user, "/bin/sh",
            [FocusTestEnvironment.script("gnome-shell-session.sh"), runtime, Self.extensionDirectory],
            environment: ["XDG_RUNTIME_DIR": runtime], log: runtime + "/gnome-shell.log")
        var address: String?
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(20)) {
            address = try? String(contentsOfFile: runtime + "/session-bus", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return address != nil
        }
        // The test runs as root, which the user's dbus-daemon refuses: the address goes through the user's bridge,
        // as the guardian daemon's does.
        let busAddress = UserSessionBus.address(ofUserBusAt: runtime + "/session-bus-socket", uid: user.uid)
        let shell = Shell(user: user, runtimeDirectory: runtime, busAddress: busAddress, compositor: compositor)
        guard address != nil else {
            shell.stop(processes)
            throw POSIXError(.ETIMEDOUT)
        }
        return shell
    }

    /// Opens the source once the shell has loaded the extension.
    func openSource(_ shell: Shell) throws -> GnomeShellFocusSource {
        var lastError: FocusSourceError?
        var source: GnomeShellFocusSource?
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(30)) {
            do throws(FocusSourceError) {
                source = try GnomeShellFocusSource(
                    busAddress: shell.busAddress, idleRefreshInterval: .milliseconds(250))
            } catch {
                lastError = error
            }
            if source == nil { usleep(200_000) }
            return source != nil
        }
        guard let source else { throw lastError ?? FocusSourceError(.connectionFailed, "gnome-shell did not start") }
        return source
    }

    @Test("follows FocusChanged from the extension: pid and app id of the focused Wayland window; Mutter idle time")
    func followsFocusAndIdle() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var shell: Shell?
        var source: GnomeShellFocusSource?
        defer {
            source?.close()
            if let shell { shell.stop(processes) } else { processes.stopAll() }
        }
        shell = try startShell(processes)
        let focus = try openSource(shell!)
        source = focus

        let terminal = try shell!.startClient(
            "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"], in: processes)
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                focus.current()?.window?.pid == ProcessID(terminal.pid)
            } != nil, "foot never reported focused: \(String(describing: focus.current()))")
        #expect(focus.current()?.window?.windowClass == "st.focus.term")

        let before = focus.statistics
        let inspector = try shell!.startClient("/usr/bin/wev", [], in: processes)
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                focus.current()?.window?.pid == ProcessID(inspector.pid)
            } != nil, "wev never reported focused: \(String(describing: focus.current()))")
        #expect(focus.statistics.eventsReceived > before.eventsReceived)

        processes.stop(inspector)
        #expect(
            FocusTestEnvironment.waitUntil {
                focus.current()?.window?.pid == ProcessID(terminal.pid)
            } != nil, "focus did not return to foot")

        let firstIdle = try #require(focus.current()?.idleTime)
        Thread.sleep(forTimeInterval: 1.2)
        let laterIdle = try #require(focus.current()?.idleTime)
        print("gnome-shell: statistics \(focus.statistics), idle \(firstIdle) then \(laterIdle)")
        #expect(laterIdle > firstIdle)
    }

    @Test("accounting: A 2 s, B 3 s, A 2 s (B opened, then closed) within 1 s per app")
    func accountingMatchesTruth() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var shell: Shell?
        var source: GnomeShellFocusSource?
        defer {
            source?.close()
            if let shell { shell.stop(processes) } else { processes.stopAll() }
        }
        shell = try startShell(processes)
        let focus = try openSource(shell!)
        source = focus
        let terminal = try shell!.startClient(
            "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"], in: processes)
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
            focus.current()?.window?.pid == ProcessID(terminal.pid)
        }

        var inspector: FocusTestChild?
        let running = shell!
        let totals = try FocusAccounting.run(
            source: focus, plan: [("st.focus.term", .seconds(2)), ("wev", .seconds(3)), ("st.focus.term", .seconds(2))]
        ) { windowClass in
            if windowClass == "wev" {
                let started = try running.startClient("/usr/bin/wev", [], in: processes)
                inspector = started
                _ = FocusTestEnvironment.waitUntil { focus.current()?.window?.pid == ProcessID(started.pid) }
            } else if let open = inspector {
                processes.stop(open)
                _ = FocusTestEnvironment.waitUntil { focus.current()?.window?.pid == ProcessID(terminal.pid) }
            }
        }
        print("gnome-shell: accounted seconds \(totals)")
        #expect(abs(totals["st.focus.term", default: 0] - 4) <= 1)
        #expect(abs(totals["wev", default: 0] - 3) <= 1)
    }
}
