import Foundation
import LinuxActivity
import ScreenTimeModel
import Testing

/// The sway focus source against a real headless sway with real foot and wev clients.
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.swaySkipReason)))
struct FocusSwayTests {
    struct Desktop {
        var sway: FocusTestSway
        var terminal: FocusTestChild
        var inspector: FocusTestChild
    }

    /// sway with foot (app_id `st.focus.term`) and wev (app_id `wev`), each seen focused once it maps.
    func startDesktop(_ processes: FocusTestProcesses, source: inout SwayFocusSource?) throws -> Desktop {
        let sway = try FocusTestSway.start(in: processes)
        let opened = try SwayFocusSource(socketPath: sway.socket, treeRefreshInterval: .milliseconds(200))
        source = opened
        let terminal = try sway.startClient(
            "/usr/bin/foot", ["--app-id=st.focus.term", "sleep", "600"], in: processes)
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                opened.current()?.window?.pid == ProcessID(terminal.pid)
            } != nil, "foot never got focus")
        let inspector = try sway.startClient("/usr/bin/wev", [], in: processes)
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                opened.current()?.window?.pid == ProcessID(inspector.pid)
            } != nil, "wev never got focus")
        return Desktop(sway: sway, terminal: terminal, inspector: inspector)
    }

    @Test("follows window focus events: the focused view's pid and app_id")
    func followsFocusFromEvents() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var source: SwayFocusSource?
        defer {
            source?.close()
            processes.stopAll()
        }
        let desktop = try startDesktop(processes, source: &source)
        let focus = try #require(source)

        let terminal = FocusedWindow(pid: ProcessID(desktop.terminal.pid), windowClass: "st.focus.term")
        let inspector = FocusedWindow(pid: ProcessID(desktop.inspector.pid), windowClass: "wev")
        var latencies: [Duration] = []
        for (appID, expected) in [
            ("st.focus.term", terminal), ("wev", inspector), ("st.focus.term", terminal), ("wev", inspector),
        ] {
            let before = focus.statistics
            #expect(try desktop.sway.command("[app_id=\"\(appID)\"] focus", in: processes))
            let took = FocusTestEnvironment.waitUntil { focus.current()?.window == expected }
            #expect(took != nil, "expected \(expected), source reports \(String(describing: focus.current()?.window))")
            #expect(focus.statistics.eventsReceived > before.eventsReceived)
            if let took { latencies.append(took) }
        }
        print("sway: swaymsg focus returned -> reading updated: \(latencies)")
        print("sway: statistics \(focus.statistics)")
    }

    @Test("accounting: A 2 s, B 3 s, A 2 s sampled once per second gives each app its time within 1 s")
    func accountingMatchesTruth() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var source: SwayFocusSource?
        defer {
            source?.close()
            processes.stopAll()
        }
        let desktop = try startDesktop(processes, source: &source)
        let focus = try #require(source)
        let totals = try FocusAccounting.run(
            source: focus, plan: [("st.focus.term", .seconds(2)), ("wev", .seconds(3)), ("st.focus.term", .seconds(2))]
        ) { appID in
            try desktop.sway.command("[app_id=\"\(appID)\"] focus", in: processes)
        }
        print("sway: accounted seconds \(totals)")
        #expect(abs(totals["st.focus.term", default: 0] - 4) <= 1)
        #expect(abs(totals["wev", default: 0] - 3) <= 1)
    }

    @Test("reports idle inhibitors from the tree, and nothing focused once the last view closes")
    func idleInhibitorsAndClosing() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var source: SwayFocusSource?
        defer {
            source?.close()
            processes.stopAll()
        }
        let desktop = try startDesktop(processes, source: &source)
        let focus = try #require(source)
        #expect(focus.current()?.idleInhibited == false)
        #expect(try desktop.sway.command("[app_id=\"wev\"] inhibit_idle open", in: processes))
        #expect(FocusTestEnvironment.waitUntil { focus.current()?.idleInhibited == true } != nil)
        #expect(try desktop.sway.command("[app_id=\"wev\"] inhibit_idle none", in: processes))
        #expect(FocusTestEnvironment.waitUntil { focus.current()?.idleInhibited == false } != nil)

        processes.stop(desktop.inspector)
        processes.stop(desktop.terminal)
        #expect(FocusTestEnvironment.waitUntil { focus.current().map { $0.window == nil } == true } != nil)
    }

    @Test("reports a lost connection as nil when sway exits")
    func reportsLostConnection() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var source: SwayFocusSource?
        defer {
            source?.close()
            processes.stopAll()
        }
        let desktop = try startDesktop(processes, source: &source)
        let focus = try #require(source)
        processes.stop(desktop.inspector)
        processes.stop(desktop.terminal)
        processes.stop(desktop.sway.compositor)
        #expect(FocusTestEnvironment.waitUntil { focus.current() == nil } != nil)
    }
}

/// sway's idle time, read as a Wayland client of the same sway.
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.swaySkipReason)))
struct FocusSwayIdleTests {
    @Test("measures the seat's idle time from sway's idle notifications: growing without input, zero after input")
    func measuresIdleTime() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        var source: SwayFocusSource?
        defer {
            source?.close()
            processes.stopAll()
        }
        let sway = try FocusTestSway.start(in: processes)
        let opened = try SwayFocusSource(socketPath: sway.socket, idleResolution: .milliseconds(500))
        source = opened
        print("sway idle: \(opened.idleProtocol ?? "none") \(opened.idleUnavailable ?? "")")
        #expect(
            ["ext_idle_notifier_v1", "org_kde_kwin_idle"].contains(opened.idleProtocol),
            "\(opened.idleUnavailable ?? "")")
        func idleTime() -> Duration? { opened.current()?.idleTime }

        // Headless, with no input device: idle once the resolution passes, and more so after.
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(5)) { (idleTime() ?? .zero) >= .milliseconds(600) } != nil)
        let first = try #require(idleTime())
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try #require(idleTime()) >= first + .milliseconds(300))
        // Pointer input (sway's seat command moves the cursor as a device would): zero, then idle again.
        for command in ["seat seat0 cursor move 5 5", "seat seat0 cursor move -5 -5"] {
            #expect(try sway.command(command, in: processes))
            #expect(FocusTestEnvironment.waitUntil(timeout: .seconds(2)) { idleTime() == .zero } != nil, "\(command)")
            #expect(
                FocusTestEnvironment.waitUntil(timeout: .seconds(5)) { (idleTime() ?? .zero) >= .milliseconds(500) }
                    != nil, "never idle again after \(command)")
        }
    }

    @Test("a Wayland socket that another process serves is never asked for the idle time: the sway's own is")
    func asksOnlyTheSameSway() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let sway = try FocusTestSway.start(in: processes)
        // A socket of this process's, named as a Wayland display in a folder of its own.
        let folder = try #require(String(validatingCString: mkdtemp(strdup("/tmp/screentime-wayland.XXXXXX"))))
        defer { rmdir(folder) }
        let listener = try #require(FocusTestEnvironment.listeningSocket(at: folder + "/wayland-0"))
        defer {
            close(listener)
            unlink(folder + "/wayland-0")
        }

        let elsewhere = try SwayFocusSource(socketPath: sway.socket, runtimeDirectory: folder)
        defer { elsewhere.close() }
        #expect(elsewhere.idleProtocol == nil)
        #expect(elsewhere.current()?.idleTime == nil)
        #expect(
            elsewhere.idleUnavailable?.contains("served by process \(getpid()), not by the compositor") == true,
            "\(elsewhere.idleUnavailable ?? "")")
        // Named first (`WAYLAND_DISPLAY`), the same socket is passed over for the one the sway serves.
        let named = try SwayFocusSource(socketPath: sway.socket, waylandDisplay: folder + "/wayland-0")
        defer { named.close() }
        #expect(named.idleProtocol != nil, "\(named.idleUnavailable ?? "")")
    }
}
