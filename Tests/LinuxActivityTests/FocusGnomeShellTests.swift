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
    /// An extension that leaves the overview at start-up (`Tests/Integration/desktop`).
    static let helperDirectory = FocusTestEnvironment.script("gnome-test-helper@screentime.org")

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

    /// Starts gnome-shell with the Screen Time extension and the test helper installed as the system's (in a data
    /// folder of root's), and the extensions in `usersOwn` installed as the user's, not enabled.
    func startShell(_ processes: FocusTestProcesses, usersOwn: String? = nil, withExtension: Bool = true) throws
        -> Shell
    {
        guard let user = FocusTestUser.ensure() else { throw POSIXError(.EPERM) }
        let runtime = try user.runtimeDirectory(in: processes)
        let system = try processes.temporaryDirectory("stfocus-gnome-data")
        chmod(system, 0o755)
        let extensions = system + "/gnome-shell/extensions"
        try FileManager.default.createDirectory(atPath: extensions, withIntermediateDirectories: true)
        for folder in (withExtension ? [Self.extensionDirectory] : []) + [Self.helperDirectory] {
            guard try processes.run("/bin/cp", ["-r", folder, extensions]).status == 0 else {
                throw POSIXError(.EIO)
            }
        }
        let compositor = try processes.start(
            asUser: user, "/bin/sh",
            [FocusTestEnvironment.script("gnome-shell-session.sh"), runtime, system] + (usersOwn.map { [$0] } ?? []),
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
    /// Moves the shell's virtual pointer (the test helper extension's), input as a device gives it.
    func movePointer(_ shell: Shell) throws {
        _ = try Bus.connect(address: shell.busAddress).call(
            destination: "org.gnome.Shell", path: "/org/screentime/TestInput", interface: "org.screentime.TestInput",
            member: "MovePointer", timeout: .seconds(2))
    }

    func openSource(_ shell: Shell, allowsUsersExtensions: Bool = true) throws -> GnomeShellFocusSource {
        var lastError: FocusSourceError?
        var source: GnomeShellFocusSource?
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(30)) {
            do throws(FocusSourceError) {
                source = try GnomeShellFocusSource(
                    busAddress: shell.busAddress, idleResolution: .milliseconds(500),
                    allowsUsersExtensions: allowsUsersExtensions)
            } catch {
                lastError = error
            }
            if source == nil { usleep(200_000) }
            return source != nil
        }
        guard let source else { throw lastError ?? FocusSourceError(.connectionFailed, "gnome-shell did not start") }
        return source
    }

    /// Runs `body` with gnome-shell running (the extensions `usersOwn` makes installed as the user's) and its source
    /// open, alone on the desktop; stops them after.
    func withShell(
        allowsUsersExtensions: Bool = true, usersOwn: (FocusTestProcesses) throws -> String? = { _ in nil },
        _ body: (Shell, GnomeShellFocusSource, FocusTestProcesses) throws -> Void
    ) throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var shell: Shell?
        var source: GnomeShellFocusSource?
        defer {
            source?.close()
            if let shell { shell.stop(processes) } else { processes.stopAll() }
        }
        shell = try startShell(processes, usersOwn: try usersOwn(processes))
        source = try openSource(shell!, allowsUsersExtensions: allowsUsersExtensions)
        try body(shell!, source!, processes)
    }

    @Test("follows FocusChanged from the extension: pid and app id of the focused Wayland window; Mutter idle time")
    func followsFocusAndIdle() throws {
        try withShell { shell, focus, processes in
            let terminal = try shell.startClient(
                "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"], in: processes)
            #expect(
                FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                    focus.current()?.window?.pid == ProcessID(terminal.pid)
                } != nil, "foot never reported focused: \(String(describing: focus.current()))")
            #expect(focus.current()?.window?.windowClass == "st.focus.term")

            let before = focus.statistics
            let inspector = try shell.startClient("/usr/bin/wev", [], in: processes)
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
    }

    @Test(
        "a guardian's limited user's GNOME Shell is believed while it runs the system's extensions alone, not once one of theirs runs"
    )
    func aGuardiansLimitedUsersShellRunsNoExtensionOfTheirs() throws {
        let uuid = "own-extension@example.org"
        try withShell(allowsUsersExtensions: false) { processes in
            // An extension of the user's own, installed but not enabled: one that does nothing, with the test helper's
            // metadata under a uuid of theirs.
            let own = try processes.temporaryDirectory("stfocus-gnome-own")
            chmod(own, 0o755)
            try FileManager.default.createDirectory(atPath: own + "/" + uuid, withIntermediateDirectories: true)
            try "function init() { return { enable() {}, disable() {} }; }\n".write(
                toFile: own + "/\(uuid)/extension.js", atomically: true, encoding: .utf8)
            let metadata = try String(contentsOfFile: Self.helperDirectory + "/metadata.json", encoding: .utf8)
                .replacingOccurrences(of: "gnome-test-helper@screentime.org", with: uuid)
            try metadata.write(toFile: own + "/\(uuid)/metadata.json", atomically: true, encoding: .utf8)
            return own
        } _: { shell, focus, processes in
            #expect(focus.current() != nil)
            // The user enables theirs (as the Extensions app does): the source ends, and opening it again is refused.
            let bus = try Bus.connect(address: shell.busAddress)
            _ = try bus.call(
                destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions",
                member: "EnableExtension", arguments: [.string(uuid)], timeout: .seconds(5))
            #expect(
                FocusTestEnvironment.waitUntil(timeout: .seconds(10)) { focus.current() == nil } != nil,
                "the source still reports focus with an extension of the user's running")
            let refused = #expect(throws: FocusSourceError.self) {
                try GnomeShellFocusSource(busAddress: shell.busAddress, allowsUsersExtensions: false)
            }
            #expect(refused?.message.contains("extensions of the user's own (\(uuid))") == true, "\(refused as Any)")
            // A user's own daemon believes it.
            try GnomeShellFocusSource(busAddress: shell.busAddress).close()
        }
    }

    @Test("Mutter's watches give the idle time: growing once the seat has gone 500 ms without input, zero at input")
    func followsMuttersIdleWatches() throws {
        try withShell { shell, focus, processes in
            for round in 1...2 {
                try movePointer(shell)
                #expect(
                    FocusTestEnvironment.waitUntil(timeout: .seconds(2)) { focus.current()?.idleTime == .zero } != nil,
                    "round \(round): idle time \(String(describing: focus.current()?.idleTime)) after input")
                // Idle once 500 ms pass without input, and growing with the clock after.
                let idled = FocusTestEnvironment.waitUntil(timeout: .seconds(5)) {
                    (focus.current()?.idleTime ?? .zero) >= .milliseconds(1200)
                }
                #expect(idled != nil, "round \(round): never idle: \(String(describing: focus.current()?.idleTime))")
            }
        }
    }

    @Test(
        "without the extension, a guardian's limited user's GNOME session is measured for idleness by Mutter alone, and every app counts"
    )
    func withoutTheExtensionAGuardiansLimitedUsersSessionIsMeasuredForIdleness() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var shell: Shell?
        defer { if let shell { shell.stop(processes) } else { processes.stopAll() } }
        shell = try startShell(processes, withExtension: false)
        let running = try #require(shell)
        func context(guardian: Bool) -> FocusSessionContext {
            FocusSessionContext(
                sessionType: "wayland", desktop: "gnome", uid: UserID(running.user.uid),
                runtimeDirectory: running.runtimeDirectory,
                environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(running.runtimeDirectory)/session-bus-socket"],
                limitedByGuardian: guardian)
        }
        var source: (any FocusSource)?
        defer { source?.close() }
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(30)) {
            source = try? FocusSources.make(context(guardian: true))
            if source == nil { usleep(200_000) }
            return source != nil
        }
        let idle = try #require(source, "no source for a guardian's limited user")
        #expect(idle.name == "gnome-shell idle monitor")
        let first = try #require(idle.current())
        #expect(!first.seesFocus && first.window == nil)
        // Mutter's watches tell the idle time once the seat has gone 5 s without input (the shell has none), zero at
        // input, and again 5 s after it.
        for round in 1...2 {
            let idled = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                (idle.current()?.idleTime ?? .zero) >= .milliseconds(5500)
            }
            #expect(idled != nil, "round \(round): never idle: \(String(describing: idle.current()?.idleTime))")
            if round == 1 {
                try movePointer(running)
                #expect(
                    FocusTestEnvironment.waitUntil(timeout: .seconds(2)) { idle.current()?.idleTime == .zero } != nil,
                    "idle time \(String(describing: idle.current()?.idleTime)) after input")
            }
        }
        // A user's own daemon has no source there: the extension is not enabled.
        let refused = #expect(throws: FocusSourceUnavailable.self) { try FocusSources.make(context(guardian: false)) }
        #expect(refused?.description.contains("not enabled") == true, "\(refused as Any)")
    }

    @Test("accounting: A 2 s, B 3 s, A 2 s (B opened, then closed) within 1 s per app")
    func accountingMatchesTruth() throws {
        try withShell { shell, focus, processes in
            let terminal = try shell.startClient(
                "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"], in: processes)
            _ = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                focus.current()?.window?.pid == ProcessID(terminal.pid)
            }

            var inspector: FocusTestChild?
            let totals = try FocusAccounting.run(
                source: focus,
                plan: [("st.focus.term", .seconds(2)), ("wev", .seconds(3)), ("st.focus.term", .seconds(2))]
            ) { windowClass in
                if windowClass == "wev" {
                    let started = try shell.startClient("/usr/bin/wev", [], in: processes)
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
}
