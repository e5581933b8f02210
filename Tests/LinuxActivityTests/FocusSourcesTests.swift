import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// Choosing a source for a logind session, and the reasons given when none answers.
@Suite(.serialized)
struct FocusSourcesTests {
    @Test("a tty session has no focus source, and says so")
    func ttyHasNoSource() {
        let error = #expect(throws: FocusSourceUnavailable.self) {
            try FocusSources.make(FocusSessionContext(sessionType: "tty", uid: UserID(0)))
        }
        #expect(error?.description.contains("tty") == true)
    }

    @Test(
        "an X11 session opens the X11 source with the cookie named by the session's XAUTHORITY",
        .enabled(if: FocusTestEnvironment.x11SkipReason == nil))
    func x11SessionOpensX11() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let server = try FocusTestXServer.start(in: processes, requireCookie: true)
        let source = try FocusSources.make(
            FocusSessionContext(
                sessionType: "x11", display: server.display, uid: UserID(getuid()), home: "/nonexistent",
                environment: ["XAUTHORITY": server.authorityFile!]))
        defer { source.close() }
        #expect(source.name == "x11")
        #expect(source.current() != nil)
    }

    @Test(
        "a Wayland session with a sway socket in the runtime directory opens the sway source",
        .enabled(if: FocusTestEnvironment.swaySkipReason == nil))
    func waylandSessionFindsSway() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let sway = try FocusTestSway.start(in: processes)
        let source = try FocusSources.make(
            FocusSessionContext(
                sessionType: "wayland", uid: UserID(sway.user.uid), runtimeDirectory: sway.runtimeDirectory))
        defer { source.close() }
        #expect(source.name == "sway")
        #expect(source.current() != nil)
    }

    @Test("display servers tell idleness after 5 s without input, or half the idle timeout when that is shorter")
    func theIdleResolutionFitsTheIdleTimeout() {
        #expect(FocusSessionContext.idleResolution(forTimeout: .seconds(180)) == .seconds(5))
        #expect(FocusSessionContext.idleResolution(forTimeout: .seconds(10)) == .seconds(5))
        #expect(FocusSessionContext.idleResolution(forTimeout: .seconds(4)) == .seconds(2))
        #expect(FocusSessionContext.idleResolution(forTimeout: .seconds(1)) == .milliseconds(500))
        #expect(FocusSessionContext.idleResolution(forTimeout: .milliseconds(10)) == .milliseconds(100))
        #expect(FocusSessionContext(sessionType: "x11", uid: UserID(1000)).idleResolution == .seconds(5))
    }

    @Test("the desktop a session names is asked first; a guardian's limited user's, alone and only as logind names it")
    func theSessionsDesktopIsAskedFirst() {
        func sources(_ desktop: String?, _ environment: [String: String] = [:], guardian: Bool = false) -> [String] {
            FocusSessionContext(
                sessionType: "wayland", desktop: desktop, uid: UserID(1000), environment: environment,
                sessionID: "4", limitedByGuardian: guardian
            ).waylandSources
        }
        #expect(sources(nil) == ["sway", "gnome-shell", "kwin"])
        #expect(sources("gnome") == ["gnome-shell", "sway", "kwin"])
        #expect(sources("ubuntu-wayland") == ["gnome-shell", "sway", "kwin"])
        #expect(sources("KDE") == ["kwin", "sway", "gnome-shell"])
        #expect(sources(nil, ["XDG_CURRENT_DESKTOP": "sway"]) == ["sway", "gnome-shell", "kwin"])
        #expect(sources(nil, ["XDG_CURRENT_DESKTOP": "KDE"]) == ["kwin", "sway", "gnome-shell"])
        // A guardian's limited user: a GNOME session is never asked for a sway (nested in a window of theirs) or a
        // KWin (a program of theirs owning its name); their environment names nothing.
        #expect(sources("gnome", guardian: true) == ["gnome-shell"])
        #expect(sources("plasmawayland", guardian: true) == ["kwin"])
        #expect(sources("sway", guardian: true) == ["sway"])
        #expect(sources(nil, ["XDG_CURRENT_DESKTOP": "KDE"], guardian: true) == ["sway", "gnome-shell", "kwin"])
    }

    /// Where cgroup2 is mounted, and whether this process may make cgroups there (root); under CI=true it runs (and
    /// fails) without.
    static let cgroupMount = (try? Freezer.cgroup2MountPoint().string) ?? "/sys/fs/cgroup"
    static var canMakeCgroups: Bool {
        (getuid() == 0 && access(cgroupMount + "/cgroup.procs", W_OK) == 0)
            || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test(
        "a guardian's limited user's sway is believed only as their session's compositor, not one started outside its scope, apart from its login or nested in it",
        .enabled(if: FocusTestEnvironment.swaySkipReason == nil && canMakeCgroups))
    func aGuardiansLimitedUsersSwayMustBeTheSessionsOwn() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        // This process stands for the session's leader (the login, a display manager's worker): it starts the sway.
        let session = SessionCompositor(id: "st\(getpid())", leader: ProcessID(getpid()))
        var folders: [String] = []
        var runtimes: [String] = []
        defer {
            // The sways started here, by the socket each made (some no longer below a process this test started).
            let sockets = runtimes.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: $0)) ?? [] }
                .filter { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
            let sways = sockets.compactMap { pid_t($0.split(separator: ".").dropLast().last ?? "") }
                .filter { $0 > 1 && FileSystem.readLink("/proc/\($0)/exe") == "/usr/bin/sway" }
            for pid in sways { kill(pid, SIGTERM) }
            for pid in sways {
                _ = FocusTestEnvironment.waitUntil(timeout: .seconds(5)) {
                    FileSystem.readLink("/proc/\(pid)/exe") == nil
                }
                kill(pid, SIGKILL)
            }
            processes.stopAll()
            for folder in folders.reversed() {
                _ = FocusTestEnvironment.waitUntil(timeout: .seconds(5)) { rmdir(folder) == 0 }
            }
        }
        let sway = try FocusTestSway.start(in: processes)
        runtimes.append(sway.runtimeDirectory)
        let user = UserID(sway.user.uid)
        let context = FocusSessionContext(
            sessionType: "wayland", uid: user, runtimeDirectory: sway.runtimeDirectory, sessionID: session.id,
            leader: session.leader, limitedByGuardian: true)
        // Started outside the session's scope (in this test's cgroup, as a sway typed into GNOME's terminal is in
        // the terminal's): refused for a guardian's limited user, believed for a user's own daemon.
        let outside = #expect(throws: FocusSourceUnavailable.self) { try FocusSources.make(context) }
        #expect(outside?.description.contains("outside session \(session.id)'s scope") == true, "\(outside as Any)")
        try FocusSources.make(
            FocusSessionContext(sessionType: "wayland", uid: user, runtimeDirectory: sway.runtimeDirectory)
        ).close()
        // In the session's scope (a real cgroup of logind's shape, made for the test), it is the session's compositor.
        var scope = Self.cgroupMount + "/screentime-test-session-\(getpid())"
        for name in ["", "/user.slice", "/user-\(sway.user.uid).slice", "/session-\(session.id).scope"] {
            scope += name
            try #require(mkdir(scope, 0o755) == 0, "mkdir \(scope): \(errno)")
            folders.append(scope)
        }
        try "\(sway.compositor.pid)".write(toFile: scope + "/cgroup.procs", atomically: false, encoding: .utf8)
        try SwayFocusSource(socketPath: sway.socket, session: session).close()

        /// The sockets of sways answering in `runtime` other than `known`, once there are `count`.
        func newSockets(in runtime: String, besides known: [String], count: Int) -> [String] {
            var found: [String] = []
            _ = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
                found = SwayFocusSource.sockets(in: runtime, uid: user).filter { !known.contains($0) }
                return found.count >= count
                    && found.allSatisfy { (try? SwayFocusSource(socketPath: $0))?.close() != nil }
            }
            return found
        }
        let headless = "WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman /usr/bin/sway -c "
        // A sway started from the session's own (its `exec`, or a terminal it started), in its scope too, but no
        // longer below the session's leader: refused.
        try #require(try sway.command("exec env " + headless + sway.runtimeDirectory + "/sway.conf", in: processes))
        let fromExec = try #require(
            newSockets(in: sway.runtimeDirectory, besides: [sway.socket], count: 1).first, "no sway from exec")
        let apart = #expect(throws: FocusSourceError.self) {
            try SwayFocusSource(socketPath: fromExec, session: session)
        }
        #expect(apart?.message.contains("did not start") == true, "\(apart as Any)")
        let source = try FocusSources.make(context)
        #expect((source as? SwayFocusSource)?.socketPath == sway.socket, "the newest socket is not the session's")
        // Its idle time too comes from the session's own sway, of the two displays in the folder: a guardian (root)
        // is a Wayland client of it.
        #expect(
            (source as? SwayFocusSource)?.idleProtocol != nil, "\((source as? SwayFocusSource)?.idleUnavailable ?? "")")
        source.close()

        // One started in the background by the session's shell before it became the compositor (`sway & exec sway`
        // in a profile): below the session's sway, refused.
        let runtime = try sway.user.runtimeDirectory(in: processes)
        runtimes.append(runtime)
        try "output HEADLESS-1 resolution 640x480\n".write(
            toFile: runtime + "/sway.conf", atomically: true, encoding: .utf8)
        let shell = try processes.start(
            asUser: sway.user, "/bin/sh",
            [
                "-c",
                "while [ ! -e \(runtime)/go ]; do sleep 0.02; done; env " + headless + runtime
                    + "/sway.conf & exec env "
                    + headless + runtime + "/sway.conf",
            ],
            environment: ["XDG_RUNTIME_DIR": runtime], log: runtime + "/sway.log")
        try "\(shell.pid)".write(toFile: scope + "/cgroup.procs", atomically: false, encoding: .utf8)
        try "".write(toFile: runtime + "/go", atomically: false, encoding: .utf8)
        let both = newSockets(in: runtime, besides: [], count: 2)
        try #require(
            both.count == 2,
            "the two sways made no sockets: \(both) \((try? String(contentsOfFile: runtime + "/sway.log", encoding: .utf8)) ?? "")"
        )
        let own = try #require(both.first { $0.hasSuffix(".\(shell.pid).sock") })
        let background = try #require(both.first { $0 != own })
        try SwayFocusSource(socketPath: own, session: session).close()
        let nested = #expect(throws: FocusSourceError.self) {
            try SwayFocusSource(socketPath: background, session: session)
        }
        #expect(nested?.message.contains("nested in /usr/bin/sway") == true, "\(nested as Any)")
    }

    @Test(
        "a compositor or an X server is known by the display socket it listens on, another listener is not",
        .enabled(if: FocusTestEnvironment.swaySkipReason == nil && FocusTestEnvironment.x11SkipReason == nil))
    func aDisplayServerIsKnownByItsSockets() throws {
        let exclusive = FocusTestEnvironment.desktopLock.acquire()
        defer { exclusive.release() }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let sway = try FocusTestSway.start(in: processes)
        #expect(DisplayServer.serves(ProcessID(sway.compositor.pid)))
        let server = try FocusTestXServer.start(in: processes, windowManager: false)
        #expect(DisplayServer.serves(ProcessID(server.xvfb.pid)))
        // A program listening on a socket of its own (as editors and terminals do), and one that listens on none.
        let folder = try processes.temporaryDirectory("stfocus-listener")
        let listener = try processes.start(
            "/usr/bin/python3",
            [
                "-c",
                "import socket, time\ns = socket.socket(socket.AF_UNIX)\ns.bind('\(folder)/server.sock')\n"
                    + "s.listen()\nopen('\(folder)/ready', 'w')\ntime.sleep(600)\n",
            ], environment: [:])
        #expect(
            FocusTestEnvironment.waitUntil(timeout: .seconds(10)) { access(folder + "/ready", F_OK) == 0 } != nil)
        #expect(!DisplayServer.serves(ProcessID(listener.pid)))
        #expect(!DisplayServer.serves(ProcessID(getpid())))
    }

    /// Starts a session bus of its own (`dbus-daemon`, stopped with `processes`) at `RUNTIME/bus`; returns RUNTIME.
    func startSessionBus(in processes: FocusTestProcesses) throws -> String {
        let runtime = try processes.temporaryDirectory("stfocus-bus")
        let daemon = try processes.start(
            "/usr/bin/dbus-daemon",
            ["--session", "--nofork", "--print-address=1", "--address=unix:path=\(runtime)/bus"],
            captureOutput: true)
        _ = daemon.readLine()
        return runtime
    }

    @Test(
        "a Wayland session whose bus has neither GNOME Shell nor KWin lists why each source was refused",
        .enabled(if: FocusTestEnvironment.missing(["dbus-daemon"]).isEmpty))
    func waylandWithoutCompositorExplains() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let runtime = try startSessionBus(in: processes)
        let error = #expect(throws: FocusSourceUnavailable.self) {
            try FocusSources.make(
                FocusSessionContext(sessionType: "wayland", uid: UserID(getuid()), runtimeDirectory: runtime))
        }
        let reasons = error?.attempts.map(\.source) ?? []
        print("wayland without a known compositor: \(error?.description ?? "")")
        #expect(reasons.contains("gnome-shell"))
        #expect(reasons.contains("kwin"))
        #expect(reasons.contains("sway"))
    }

    @Test(
        "a program of the user's that owns GNOME Shell's or KWin's names on the session bus is not believed",
        .enabled(if: FocusTestEnvironment.missing(["dbus-daemon"]).isEmpty))
    func aProgramOwningADesktopsBusNamesIsNotBelieved() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let runtime = try startSessionBus(in: processes)
        let address = "unix:path=\(runtime)/bus"
        // Where KWin doesn't run (a GNOME session), or GNOME Shell (a KDE one), any program may own their names.
        let impostor = try Bus.connect(address: address)
        for name in ["org.kde.KWin", "org.gnome.Shell", "org.screentime.Focus"] { try impostor.requestName(name) }
        let kwin = #expect(throws: FocusSourceError.self) {
            try KWinFocusSource(busAddress: address, scriptPath: "/nonexistent")
        }
        #expect(
            kwin?.message.contains("not by a kwin_wayland or kwin_x11 only root can change") == true, "\(kwin as Any)")
        let shell = #expect(throws: FocusSourceError.self) { try GnomeShellFocusSource(busAddress: address) }
        #expect(shell?.message.contains("not by a gnome-shell only root can change") == true, "\(shell as Any)")
    }

    @Test("Xauthority files are parsed as libXau writes them, and display names are split")
    func xauthorityAndDisplayNames() throws {
        #expect(X11Display(":0")?.number == 0)
        #expect(X11Display(":1.2")?.screen == 2)
        #expect(X11Display("localhost:10.0")?.isLocal == false)
        #expect(X11Display("unix:3")?.isLocal == true)
        #expect(X11Display("nonsense") == nil)

        func counted(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)] + bytes }
        let hostname = ProcessInfo.processInfo.hostName
        var file: [UInt8] = []
        file +=
            [0x01, 0x00] + counted(Array(hostname.utf8)) + counted(Array("7".utf8))
            + counted(Array("MIT-MAGIC-COOKIE-1".utf8)) + counted([1, 2, 3])
        file +=
            [0xff, 0xff] + counted([]) + counted(Array("9".utf8))
            + counted(Array("MIT-MAGIC-COOKIE-1".utf8)) + counted([9, 9])
        #expect(XAuthority.entry(for: X11Display(":7")!, in: file)?.data == [1, 2, 3])
        #expect(XAuthority.entry(for: X11Display(":9")!, in: file)?.data == [9, 9])
        #expect(XAuthority.entry(for: X11Display(":8")!, in: file) == nil)
        #expect(XAuthority.entry(for: X11Display(":7")!, in: Array(file.prefix(10))) == nil)

        // A FIFO named as the session's Xauthority (by XAUTHORITY, which is the user's to set) holds nobody: the
        // next candidate file is read.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("xauthority-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        try Data(file).write(to: URL(fileURLWithPath: folder + "/Xauthority"))
        let found = XAuthority.find(for: X11Display(":9")!, in: [folder + "/fifo", folder + "/Xauthority"])
        #expect(found?.path == folder + "/Xauthority")
        #expect(found?.cookie.data == [9, 9])
    }

    @Test("a socket named as sway's but served by another program is refused at once")
    func aSwaySocketServedByAnotherProgramIsRefused() throws {
        // A listener of this process's (no sway): it accepts connections and never answers.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sway-ipc.\(getpid()).sock").path
        let listener = try #require(FocusTestEnvironment.listeningSocket(at: path))
        defer {
            close(listener)
            unlink(path)
        }
        let started = ContinuousClock.now
        let error = #expect(throws: FocusSourceError.self) { try SwayFocusSource(socketPath: path) }
        #expect(error?.code == .unsupported, "\(String(describing: error))")
        #expect(error?.message.contains("not by a sway only root can change") == true)
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("a process environment is read from NUL-separated /proc/PID/environ, first definition winning")
    func processEnvironment() {
        let parsed = ProcessEnvironment.parse(Array("DISPLAY=:1\0XAUTHORITY=/a=b\0DISPLAY=:2\0JUNK\0".utf8))
        #expect(parsed == ["DISPLAY": ":1", "XAUTHORITY": "/a=b"])
        let own = ProcessEnvironment.read(pid: ProcessID(getpid()))
        #expect(own?["PATH"] != nil)
    }
}
