import Foundation
import Glibc

/// What the focus tests need from the machine, and why a test is skipped when it is missing.
enum FocusTestEnvironment {
    /// The parts of the checkout that the test user's compositors and shells read (the session scripts, the GNOME
    /// Shell extension, the KWin script), copied once per test run into a folder every user may read, so that the
    /// checkout itself may be private (a clone under a `mktemp -d` folder). Removed when the test process exits.
    private static let sharedFiles: String = {
        var checkout = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { checkout.deleteLastPathComponent() }  // FocusTestEnvironment.swift, LinuxActivityTests, Tests
        var template = Array("/tmp/screentime-focus-files-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("focus tests: cannot make a folder under /tmp for the desktop files")
        }
        let root = String(cString: made)
        sharedFilesRoot = root
        atexit {
            if let root = FocusTestEnvironment.sharedFilesRoot { try? FileManager.default.removeItem(atPath: root) }
        }
        chmod(root, 0o755)
        for part in sharedParts {
            let target = URL(fileURLWithPath: root).appendingPathComponent(part)
            do {
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o755])
                try FileManager.default.copyItem(at: checkout.appendingPathComponent(part), to: target)
            } catch {
                fatalError("focus tests: cannot copy \(part) to \(root): \(error)")
            }
        }
        return root
    }()
    nonisolated(unsafe) private static var sharedFilesRoot: String?
    private static let sharedParts = [
        "Tests/Integration/desktop", "packaging/gnome-shell-extension/legacy", "packaging/kwin-script",
    ]

    /// The readable copy of a file or folder of the checkout (one of `sharedParts` or inside one).
    static func checkoutFile(_ relativePath: String) -> String { sharedFiles + "/" + relativePath }

    /// The path of a helper script of `Tests/Integration/desktop`.
    static func script(_ name: String) -> String { checkoutFile("Tests/Integration/desktop/" + name) }

    /// A Unix stream socket of this process's listening at `path` (which it creates), standing for a server that
    /// is not the one a source must believe; nil when it can't be made. The caller closes it and removes `path`.
    static func listeningSocket(at path: String) -> Int32? {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
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
        guard bound == 0, listen(listener, 4) == 0 else {
            close(listener)
            return nil
        }
        return listener
    }

    static func missing(_ programs: [String]) -> [String] {
        programs.filter { program in
            !["/usr/bin/", "/usr/local/bin/", "/bin/"].contains {
                FileManager.default.isExecutableFile(atPath: $0 + program)
            }
        }
    }

    /// Why the X11 tests cannot run here, or nil when they can.
    static let x11SkipReason: String? = {
        let absent = missing(["Xvfb", "openbox", "xdotool", "xterm", "xcalc", "xauth", "xprop"])
        guard absent.isEmpty else {
            return "X11 focus tests skipped: missing \(absent.joined(separator: ", ")) "
                + "(apt-get install xvfb openbox xdotool xterm x11-apps x11-utils xauth)"
        }
        return nil
    }()

    /// Why the sway tests cannot run here, or nil when they can.
    static let swaySkipReason: String? = {
        guard getuid() == 0 else {
            return "sway focus tests skipped: they run sway as a separate unprivileged user, which needs root"
        }
        let absent = missing(["sway", "swaymsg", "foot", "wev", "setpriv"])
        guard absent.isEmpty else {
            return "sway focus tests skipped: missing \(absent.joined(separator: ", ")) "
                + "(apt-get install sway foot wev util-linux)"
        }
        return nil
    }()

    /// Why the GNOME Shell tests cannot run here, or nil when they can.
    static let gnomeShellSkipReason: String? = {
        guard getuid() == 0 else {
            return
                "GNOME Shell focus tests skipped: they run gnome-shell as a separate unprivileged user, "
                + "which needs root"
        }
        let absent = missing(["gnome-shell", "dbus-daemon", "gsettings", "foot", "wev", "setpriv"])
        guard absent.isEmpty else {
            return "GNOME Shell focus tests skipped: missing \(absent.joined(separator: ", ")) "
                + "(apt-get install --no-install-recommends gnome-shell dbus foot wev)"
        }
        return nil
    }()

    /// Why the KWin tests cannot run here, or nil when they can.
    static let kwinSkipReason: String? = {
        guard getuid() == 0 else {
            return "KWin focus tests skipped: they run KWin as a separate unprivileged user, which needs root"
        }
        let absent = missing(["kwin_wayland", "dbus-daemon", "wev", "setpriv"])
        guard absent.isEmpty else {
            return "KWin focus tests skipped: missing \(absent.joined(separator: ", ")) "
                + "(apt-get install --no-install-recommends kwin-wayland wev); "
                + "the KWin source is not proven in a real compositor here"
        }
        return nil
    }()

    /// Held by each test that starts a display server or compositor: Swift Testing runs suites in parallel, and
    /// on a 2-core machine several desktops at once starve each other's clients.
    static let desktopLock = DesktopLock()

    /// A process-wide mutex for desktop tests, acquired and released on the same thread.
    final class DesktopLock: Sendable {
        private let lock = NSLock()

        /// Blocks until no other desktop test runs.
        func acquire() -> DesktopLock {
            lock.lock()
            return self
        }

        /// Lets the next desktop test run.
        func release() {
            lock.unlock()
        }
    }

    /// Prints the reason a suite is skipped, once, so that the test log says why. Under `CI=true` nothing is
    /// skipped: `FocusPrerequisiteTests` fails instead.
    static func report(_ reason: String?) -> Bool {
        if let reason, !isCI { print(reason) }
        return reason == nil
    }

    /// Whether the tests run under CI (`CI=true`), where a test whose real component cannot run must fail.
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Every reason a focus suite would not run here.
    static var skipReasons: [String] {
        [x11SkipReason, swaySkipReason, gnomeShellSkipReason, kwinSkipReason].compactMap { $0 }
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes; returns the time it took, nil on timeout.
    /// Used to wait for an event thread to catch up, never to assert a latency.
    static func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if condition() { return ContinuousClock.now - start }
            usleep(5_000)
        }
        return condition() ? ContinuousClock.now - start : nil
    }
}
