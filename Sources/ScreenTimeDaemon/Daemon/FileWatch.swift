import Glibc
import SystemPackage

/// Tells when some files may have changed, through `inotify(7)` watches on their directories (so a file replaced
/// by a rename, as editors and `timedatectl` do, is followed too). The descriptor becomes readable on a change; the
/// owner polls it with its other descriptors and calls `changes()`, so that nothing is read while nothing changes.
///
/// Not `Sendable`: one thread owns it.
final class FileWatch {
    /// Readable when a watched file had an event; non-blocking.
    let fileDescriptor: FileDescriptor
    /// The watched paths whose directory could not be watched (it doesn't exist, or no watch is left), or is no
    /// longer (it was removed: a folder made anew is another folder): the owner checks them by other means, and
    /// `rewatch()` watches them again once their folder exists.
    private(set) var unwatched: [String] = []
    private var names: [Int32: [String: String]] = [:]
    private var buffer = [UInt8](repeating: 0, count: 4096)

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

    /// Watches `paths`: absolute file paths, or folders written with a final `/` (any change in them counts).
    init(paths: [String]) throws(Errno) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        fileDescriptor = FileDescriptor(rawValue: descriptor)
        unwatched = paths.filter { !watch($0) }
    }

    /// Watches the folder of `path` (or `path`, a folder); whether it could.
    private func watch(_ path: String) -> Bool {
        let (folder, name) =
            path.hasSuffix("/")
            ? (path, "") : (FilePath(path).removingLastComponent().string, FilePath(path).lastComponent?.string ?? "")
        guard path.hasSuffix("/") || !name.isEmpty else { return false }
        let watch = inotify_add_watch(fileDescriptor.rawValue, folder, Self.mask)
        guard watch >= 0 else { return false }
        names[watch, default: [:]][name] = path
        return true
    }

    /// Watches again the paths of `unwatched` whose folder exists now, and returns them: what they hold may have
    /// changed while nothing watched them. One `inotify_add_watch(2)` a path.
    func rewatch() -> Set<String> {
        guard !unwatched.isEmpty else { return [] }
        let watched = unwatched.filter { watch($0) }
        unwatched.removeAll { watched.contains($0) }
        return Set(watched)
    }

    deinit { try? fileDescriptor.close() }

    /// Whether `path` is an empty regular file (links not followed: a link made in place of a file is a change).
    private static func isEmptyFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && status.st_size == 0
    }

    /// The watched paths that had events since the last call (empty when none is pending). Never blocks.
    func changes() -> Set<String> {
        var changed: Set<String> = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor.rawValue, $0.baseAddress, $0.count) }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (watch, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let bytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                let name = String(decoding: bytes, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_IGNORED) != 0 {
                    // The folder is gone (removed, or its file system unmounted), and its watch with it.
                    let lost = names.removeValue(forKey: watch)?.values.sorted() ?? []
                    unwatched += lost
                    changed.formUnion(lost)
                    continue
                }
                guard let path = names[watch]?[name] ?? names[watch]?[""] else { continue }
                // A file just created is empty until it is written (an editor that saves by removing and creating
                // anew): its IN_CLOSE_WRITE follows. Read now, it would be an empty policy: no limits for a moment.
                if mask & UInt32(IN_CREATE) != 0, Self.isEmptyFile(names[watch]?[name] != nil ? path : path + name) {
                    continue
                }
                changed.insert(path)
            }
        }
    }
}
