import Foundation
import LinuxActivity

/// A real headless sway for tests, run as the unprivileged test user with a private `XDG_RUNTIME_DIR`
/// (sway 1.7 refuses to run as root), and Wayland clients started as the same user.
struct FocusTestSway {
    /// The account sway and its clients run as.
    var user: FocusTestUser
    /// The private runtime directory holding the Wayland and IPC sockets.
    var runtimeDirectory: String
    /// The IPC socket (`SWAYSOCK`).
    var socket: String
    /// The Wayland display name (`WAYLAND_DISPLAY`).
    var waylandDisplay: String
    /// The compositor process.
    var compositor: FocusTestChild

    /// Starts sway headless with a one-output configuration and waits for its IPC socket to answer.
    static func start(in processes: FocusTestProcesses) throws -> FocusTestSway {
        guard let user = FocusTestUser.ensure() else { throw POSIXError(.EPERM) }
        let runtimeDirectory = try user.runtimeDirectory(in: processes)
        let configuration = runtimeDirectory + "/sway.conf"
        try "output HEADLESS-1 resolution 1280x800\ndefault_border none\n"
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        chown(configuration, user.uid, user.gid)
        let compositor = try processes.start(
            asUser: user, "/usr/bin/sway", ["-c", configuration],
            environment: [
                "XDG_RUNTIME_DIR": runtimeDirectory, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
                "WLR_RENDERER": "pixman",
            ], log: runtimeDirectory + "/sway.log")
        var socket: String?
        var waylandDisplay: String?
        let ready = FocusTestEnvironment.waitUntil(timeout: .seconds(10)) {
            socket = SwayFocusSource.sockets(in: runtimeDirectory, uid: .init(user.uid)).first
            waylandDisplay = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            guard let socket, waylandDisplay != nil else { return false }
            return (try? processes.run("/usr/bin/swaymsg", ["-s", socket, "-t", "get_version"]))?.status == 0
        }
        guard ready != nil, let socket, let waylandDisplay else { throw POSIXError(.ETIMEDOUT) }
        return FocusTestSway(
            user: user, runtimeDirectory: runtimeDirectory, socket: socket, waylandDisplay: waylandDisplay,
            compositor: compositor)
    }

    /// Starts a Wayland client as the test user.
    func startClient(_ executable: String, _ arguments: [String], in processes: FocusTestProcesses) throws
        -> FocusTestChild
    {
        try processes.start(
            asUser: user, executable, arguments,
            environment: ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay],
            log: runtimeDirectory + "/clients.log")
    }

    /// Runs a sway command (`[app_id="x"] focus`) and returns whether sway reported success.
    @discardableResult
    func command(_ command: String, in processes: FocusTestProcesses) throws -> Bool {
        try processes.run("/usr/bin/swaymsg", ["-s", socket, command]).status == 0
    }
}
