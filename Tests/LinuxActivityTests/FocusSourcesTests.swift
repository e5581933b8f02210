import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

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

    @Test(
        "a Wayland session whose bus has neither GNOME Shell nor KWin lists why each source was refused",
        .enabled(if: FocusTestEnvironment.missing(["dbus-daemon"]).isEmpty))
    func waylandWithoutCompositorExplains() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let runtime = try processes.temporaryDirectory("stfocus-bus")
        let bus = try processes.start(
            "/usr/bin/dbus-daemon",
            ["--session", "--nofork", "--print-address=1", "--address=unix:path=\(runtime)/bus"],
            captureOutput: true)
        _ = bus.readLine()
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
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer {
            close(listener)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
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
