import Foundation
import LinuxActivity

/// A real X server for tests: Xvfb on a free display (chosen by Xvfb itself through `-displayfd`), optionally
/// requiring an MIT-MAGIC-COOKIE-1, and openbox as the EWMH window manager.
struct FocusTestXServer {
    /// The display name, such as `:3`.
    var display: String
    /// The Xauthority file clients must use, when the server requires one.
    var authorityFile: String?
    /// Environment for X clients (`DISPLAY`, and `XAUTHORITY` when a cookie is required).
    var environment: [String: String]
    /// The X server and the window manager, for a failure's message.
    var xvfb: FocusTestChild
    var windowManager: FocusTestChild?

    /// Starts Xvfb, and openbox unless `windowManager` is false; waits until openbox manages the root window.
    static func start(in processes: FocusTestProcesses, requireCookie: Bool = false, windowManager: Bool = true)
        throws -> FocusTestXServer
    {
        let directory = try processes.temporaryDirectory("stfocus-x11")
        var arguments = ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]
        var serverAuthority: String?
        if requireCookie {
            // The server reads every cookie in its -auth file whatever display it names; clients get a file of
            // their own, written by xauth once the display number is known.
            serverAuthority = directory + "/server.xauth"
            let cookie = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            _ = try processes.run("/usr/bin/xauth", ["-f", serverAuthority!, "add", ":0", ".", cookie])
            arguments += ["-auth", serverAuthority!]
        } else {
            arguments.append("-ac")
        }
        let xvfb = try processes.start("/usr/bin/Xvfb", arguments, captureOutput: true)
        guard let number = xvfb.readLine(), !number.isEmpty else { throw POSIXError(.ECONNREFUSED) }
        let display = ":" + number
        var environment = ["DISPLAY": display]
        var authorityFile: String?
        if let serverAuthority {
            authorityFile = directory + "/user.xauth"
            let cookie =
                try processes.run("/usr/bin/xauth", ["-f", serverAuthority, "list"]).output
                .split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            _ = try processes.run("/usr/bin/xauth", ["-f", authorityFile!, "add", display, ".", cookie])
            environment["XAUTHORITY"] = authorityFile
        }
        var server = FocusTestXServer(
            display: display, authorityFile: authorityFile, environment: environment, xvfb: xvfb)
        if windowManager {
            let log = directory + "/openbox.log"
            var asked: (status: Int32, output: String)?
            var managed = false
            // openbox, a fixture here, now and then ends at once (status 1) on a loaded machine: what it printed
            // is shown, and it is started again, at most three times in all.
            for attempt in 1...3 where !managed {
                server.windowManager = try processes.start(
                    "/bin/sh", ["-c", "exec /usr/bin/openbox --sm-disable >>\"$0\" 2>&1", log],
                    environment: environment.merging(["HOME": directory]) { own, _ in own }, log: log)
                var ended: String?
                managed =
                    FocusTestEnvironment.waitUntil(timeout: .seconds(60)) {
                        asked = try? processes.run(
                            "/usr/bin/xprop", ["-root", "_NET_SUPPORTED"], environment: environment)
                        if asked?.output.contains("_NET_ACTIVE_WINDOW") == true { return true }
                        ended = server.windowManager.flatMap(processes.exitStatus)
                        return ended != nil
                    } != nil && ended == nil
                if let ended {
                    let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                    print(
                        "focus test harness: openbox ended (\(ended)) before managing \(display), attempt \(attempt); it said: \(said)"
                    )
                }
            }
            guard managed else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw TestError(
                    "openbox did not manage \(display) within 60 s: \(server.states(processes)); xprop "
                        + "\(asked.map { "exited \($0.status)" } ?? "did not run"); openbox said: \(said)")
            }
        }
        return server
    }

    /// The X server's and the window manager's states, for a failure's message.
    func states(_ processes: FocusTestProcesses) -> String {
        "Xvfb \(processes.describe(xvfb)), openbox \(windowManager.map(processes.describe) ?? "not started")"
    }

    /// Starts an X client and returns it once its window is mapped; `windowClass` is how xdotool finds it.
    func startClient(
        _ executable: String, _ arguments: [String], windowClass: String, in processes: FocusTestProcesses
    ) throws -> (process: FocusTestChild, window: String) {
        let log = try processes.temporaryDirectory("stfocus-client") + "/stderr"
        let process = try processes.start(executable, arguments, environment: environment, log: log)
        var window = ""
        var ended: String?
        _ = FocusTestEnvironment.waitUntil(timeout: .seconds(60)) {
            let search = try? processes.run(
                "/usr/bin/xdotool", ["search", "--onlyvisible", "--class", windowClass], environment: environment)
            window = search?.output.split(separator: "\n").first.map(String.init) ?? ""
            ended = window.isEmpty ? processes.exitStatus(process) : nil
            return !window.isEmpty || ended != nil
        }
        guard !window.isEmpty else {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let client = ended.map { "ended (\($0))" } ?? processes.describe(process)
            throw TestError(
                "no window of class \(windowClass) within 60 s: \(executable) \(client), \(states(processes)); "
                    + "it said: \(said)")
        }
        return (process, window)
    }

    /// Activates a window the way a pager or task bar does, returning when the window manager has done it.
    func activate(_ window: String, in processes: FocusTestProcesses) throws {
        _ = try processes.run("/usr/bin/xdotool", ["windowactivate", "--sync", window], environment: environment)
    }

    /// Moves the pointer: real input through XTEST, which resets the screen-saver idle timer.
    func movePointer(to x: Int, _ y: Int, in processes: FocusTestProcesses) throws {
        _ = try processes.run("/usr/bin/xdotool", ["mousemove", String(x), String(y)], environment: environment)
    }

    /// The parsed display.
    var x11Display: X11Display { X11Display(display)! }

    /// The cookie clients use, read from the user's file as the collector would.
    var authority: XAuthority? {
        guard let authorityFile else { return nil }
        return XAuthority.find(for: x11Display, in: [authorityFile])?.cookie
    }
}
