import Foundation
import Glibc

/// An exclusive `flock(2)` on a file in the daemon's state folder, held for the daemon's life: a second daemon for
/// the same folder refuses to start, and `screentime stop --release` can tell that no daemon runs any more (the
/// kernel drops the lock when the process ends, however it ends).
public final class InstanceLock {
    private var descriptor: Int32

    /// Takes the lock at `path`, creating the file (mode 0600, links not followed) and its folder as needed.
    ///
    /// - Throws: `DaemonStartError` when another process holds the lock or the file can't be opened.
    public init(path: String) throws(DaemonStartError) {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw DaemonStartError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        // A daemon that is stopping may hold it a moment longer: wait up to two seconds for it.
        var locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
        for _ in 0..<100 where !locked && errno == EWOULDBLOCK {
            usleep(20_000)
            locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw DaemonStartError(
                "another screentimed already runs for this state (\(path), pid \(holder ?? "?")); stop it first")
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit { release() }

    /// Drops the lock (closing its file), once the daemon no longer enforces anything; again does nothing.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Whether a process holds the lock at `path` now.
    public static func isHeld(at path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return true }
        flock(descriptor, LOCK_UN)
        return false
    }
}

/// Why the daemon cannot start: a sentence that says what and how to fix it.
public struct DaemonStartError: Error, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    init(_ description: String) { self.description = description }
}
