import Foundation
import LinuxActivity
import ScreenTimeModel
import Testing

/// The X11 focus source against a real Xvfb with openbox and real xterm/xcalc clients.
@Suite(.serialized, .enabled(if: FocusTestEnvironment.report(FocusTestEnvironment.x11SkipReason)))
struct FocusX11Tests {
    /// Two clients on a fresh display: an xterm with a class of its own (it sets `_NET_WM_PID`) and xcalc
    /// (which does not: only X-Resource can name its pid).
    struct Desktop {
        var server: FocusTestXServer
        var terminal: (process: FocusTestChild, window: String)
        var calculator: (process: FocusTestChild, window: String)
    }

    func startDesktop(_ processes: FocusTestProcesses, requireCookie: Bool = false) throws -> Desktop {
        let server = try FocusTestXServer.start(in: processes, requireCookie: requireCookie)
        let terminal = try server.startClient(
            "/usr/bin/xterm", ["-class", "StFocusTerm", "-e", "sleep", "600"], windowClass: "StFocusTerm",
            in: processes)
        let calculator = try server.startClient("/usr/bin/xcalc", [], windowClass: "XCalc", in: processes)
        return Desktop(server: server, terminal: terminal, calculator: calculator)
    }

    @Test("follows _NET_ACTIVE_WINDOW from PropertyNotify events: pid from X-Resource, class from WM_CLASS")
    func followsFocusFromEvents() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let desktop = try startDesktop(processes)
        let source = try X11FocusSource(display: desktop.server.x11Display, authority: nil)
        defer { source.close() }

        let terminal = FocusedWindow(pid: ProcessID(desktop.terminal.process.pid), windowClass: "StFocusTerm")
        let calculator = FocusedWindow(pid: ProcessID(desktop.calculator.process.pid), windowClass: "XCalc")
        var latencies: [Duration] = []
        for (window, expected) in [
            (desktop.terminal.window, terminal), (desktop.calculator.window, calculator),
            (desktop.terminal.window, terminal), (desktop.calculator.window, calculator),
        ] {
            let before = source.statistics
            try desktop.server.activate(window, in: processes)
            // The source makes no query of its own between events: only a PropertyNotify can bring the change.
            let took = FocusTestEnvironment.waitUntil { source.current()?.window == expected }
            let after = source.statistics
            #expect(took != nil, "expected \(expected), source reports \(String(describing: source.current()?.window))")
            #expect(after.eventsReceived > before.eventsReceived)
            // openbox clears _NET_ACTIVE_WINDOW between the two windows (two events per switch); the debounce
            // keeps that gap from being published as "no window".
            #expect(after.changesPublished == before.changesPublished + 1)
            if let took { latencies.append(took) }
        }
        print("x11: activation (xdotool --sync returned) -> reading updated: \(latencies)")
        print("x11: statistics \(source.statistics)")
    }

    /// What a program of the user's does to have another window taken for the one in front: it sets the root
    /// window's `_NET_ACTIVE_WINDOW` itself (libX11's `XChangeProperty`, through python3's ctypes).
    static let nameActiveWindow = """
        import ctypes, sys
        x = ctypes.CDLL("libX11.so.6")
        x.XOpenDisplay.restype = ctypes.c_void_p
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        display = x.XOpenDisplay(None)
        x.XDefaultRootWindow.restype = ctypes.c_ulong
        x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        x.XInternAtom.restype = ctypes.c_ulong
        x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        x.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int,
                                      ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        window = (ctypes.c_long * 1)(int(sys.argv[1], 0))
        # Type WINDOW (33), 32-bit, replacing what the window manager wrote.
        x.XChangeProperty(display, x.XDefaultRootWindow(display), x.XInternAtom(display, b"_NET_ACTIVE_WINDOW", 0),
                          33, 32, 0, window, 1)
        x.XCloseDisplay(display)
        """

    @Test("for a guardian's limited user, a window another client names active is not believed over the keyboard focus")
    func aWindowNamedActiveByAnotherClientIsNotBelievedOverTheKeyboardFocus() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let desktop = try startDesktop(processes)
        let guardians = try X11FocusSource(
            display: desktop.server.x11Display, authority: nil, followsKeyboardFocus: true)
        defer { guardians.close() }
        let users = try X11FocusSource(display: desktop.server.x11Display, authority: nil)
        defer { users.close() }
        let terminal = FocusedWindow(pid: ProcessID(desktop.terminal.process.pid), windowClass: "StFocusTerm")
        let calculator = FocusedWindow(pid: ProcessID(desktop.calculator.process.pid), windowClass: "XCalc")
        try desktop.server.activate(desktop.terminal.window, in: processes)
        #expect(
            FocusTestEnvironment.waitUntil {
                guardians.current()?.window == terminal && users.current()?.window == terminal
            } != nil, "the terminal never came to the front")
        // The terminal keeps the keyboard; the calculator is named active.
        let named = try processes.run(
            "/usr/bin/python3", ["-c", Self.nameActiveWindow, desktop.calculator.window],
            environment: desktop.server.environment)
        try #require(named.status == 0, "python3 could not set _NET_ACTIVE_WINDOW")
        #expect(
            FocusTestEnvironment.waitUntil { users.current()?.window == calculator } != nil,
            "the property was not set: nothing to test")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(guardians.current()?.window == terminal, "\(String(describing: guardians.current()?.window))")
        // Or no window at all.
        let cleared = try processes.run(
            "/usr/bin/python3", ["-c", Self.nameActiveWindow, "0"], environment: desktop.server.environment)
        try #require(cleared.status == 0, "python3 could not clear _NET_ACTIVE_WINDOW")
        #expect(
            FocusTestEnvironment.waitUntil { users.current() != nil && users.current()?.window == nil } != nil,
            "the property was not cleared: nothing to test")
        #expect(guardians.current()?.window == terminal, "\(String(describing: guardians.current()?.window))")
        // The window manager's own switch is followed.
        try desktop.server.activate(desktop.calculator.window, in: processes)
        #expect(FocusTestEnvironment.waitUntil { guardians.current()?.window == calculator } != nil)
        try desktop.server.activate(desktop.terminal.window, in: processes)
        #expect(FocusTestEnvironment.waitUntil { guardians.current()?.window == terminal } != nil)
    }

    @Test("accounting: A 2 s, B 3 s, A 2 s sampled once per second gives each app its time within 1 s")
    func accountingMatchesTruth() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let desktop = try startDesktop(processes)
        let source = try X11FocusSource(display: desktop.server.x11Display, authority: nil)
        defer { source.close() }

        let totals = try FocusAccounting.run(
            source: source,
            plan: [("StFocusTerm", .seconds(2)), ("XCalc", .seconds(3)), ("StFocusTerm", .seconds(2))]
        ) { windowClass in
            try desktop.server.activate(
                windowClass == "StFocusTerm" ? desktop.terminal.window : desktop.calculator.window, in: processes)
        }
        print("x11: accounted seconds \(totals)")
        #expect(abs(totals["StFocusTerm", default: 0] - 4) <= 1)
        #expect(abs(totals["XCalc", default: 0] - 3) <= 1)
    }

    @Test(
        "idle time grows without input and resets on pointer motion: told by the SYNC IDLETIME alarm, or asked of MIT-SCREEN-SAVER",
        arguments: [true, false])
    func idleTimeFollowsInput(withAlarm: Bool) throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let server = try FocusTestXServer.start(in: processes)
        let source = try X11FocusSource(
            display: server.x11Display, authority: nil, idleResolution: withAlarm ? .milliseconds(500) : nil)
        defer { source.close() }
        #expect(source.idleProtocol == (withAlarm ? "SYNC IDLETIME" : "MIT-SCREEN-SAVER"))

        for round in 1...2 {
            try server.movePointer(to: 5 + round * 100, 5, in: processes)
            #expect(
                FocusTestEnvironment.waitUntil(timeout: .seconds(2)) {
                    (source.current()?.idleTime ?? .seconds(60)) < .milliseconds(500)
                } != nil, "round \(round): idle time \(String(describing: source.current()?.idleTime)) after input")
            let idled = FocusTestEnvironment.waitUntil(timeout: .seconds(5)) {
                (source.current()?.idleTime ?? .zero) >= .milliseconds(1200)
            }
            #expect(idled != nil, "round \(round): never idle: \(String(describing: source.current()?.idleTime))")
        }
    }

    @Test("connects with the user's cookie found through XAUTHORITY; without it the reason names the refusal")
    func usesTheUsersXauthority() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let desktop = try startDesktop(processes, requireCookie: true)
        let display = desktop.server.x11Display

        #expect(throws: FocusSourceError.self) {
            try X11FocusSource(
                display: display, authority: XAuthority(protocolName: "MIT-MAGIC-COOKIE-1", data: [1, 2]))
        }
        let paths = XAuthority.candidatePaths(
            environment: ["XAUTHORITY": desktop.server.authorityFile!], home: "/nonexistent", runtimeDirectory: nil)
        let found = try #require(XAuthority.find(for: display, in: paths))
        #expect(found.path == desktop.server.authorityFile)
        let source = try X11FocusSource(display: display, authority: found.cookie)
        defer { source.close() }
        try desktop.server.activate(desktop.calculator.window, in: processes)
        let pid = ProcessID(desktop.calculator.process.pid)
        #expect(FocusTestEnvironment.waitUntil { source.current()?.window?.pid == pid } != nil)
    }

    @Test("without an EWMH window manager the source refuses with a reason")
    func refusesWithoutWindowManager() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let server = try FocusTestXServer.start(in: processes, windowManager: false)
        let error = #expect(throws: FocusSourceError.self) {
            try X11FocusSource(display: server.x11Display, authority: nil)
        }
        #expect(error?.code == .unsupported)
        print("x11 without a window manager: \(error?.message ?? "")")
    }

    @Test("reports a lost connection as nil when the X server goes away")
    func reportsLostConnection() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let desktop = try startDesktop(processes)
        let source = try X11FocusSource(display: desktop.server.x11Display, authority: nil)
        defer { source.close() }
        #expect(source.current() != nil)
        processes.stopAll()
        #expect(FocusTestEnvironment.waitUntil { source.current() == nil } != nil)
    }
}
