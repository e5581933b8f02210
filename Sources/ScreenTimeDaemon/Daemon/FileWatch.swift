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
    /// The watched paths whose directory could not be watched (it doesn't exist, or no watch is left): the owner
    /// checks them by other means.
    private(set) var unwatched: [String] = []
    private var names: [Int32: [String: String]] = [:]
    private var buffer = [UInt8](repeating: 0, count: 4096)

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)

    /// Watches `paths`: absolute file paths, or folders written with a final `/` (any change in them counts).
    init(paths: [String]) throws(Errno) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Errno(rawValue: errno) }
        fileDescriptor = FileDescriptor(rawValue: descriptor)
        for path in paths {
            if path.hasSuffix("/") {
                let watch = inotify_add_watch(descriptor, path, Self.mask)
                if watch < 0 { unwatched.append(path) } else { names[watch, default: [:]][""] = path }
                continue
            }
            let file = FilePath(path)
            guard let name = file.lastComponent?.string else {
                unwatched.append(path)
                continue
            }
            let watch = inotify_add_watch(descriptor, file.removingLastComponent().string, Self.mask)
            if watch < 0 {
                unwatched.append(path)
            } else {
                names[watch, default: [:]][name] = path
            }
        }
    }

    deinit { try? fileDescriptor.close() }

    /// The watched paths that had events since the last call (empty when none is pending). Never blocks.
    func changes() -> Set<String> {
        var changed: Set<String> = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor.rawValue, $0.baseAddress, $0.count) }
            guard count > 0 else { return changed }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (watch, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let name = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                if let path = names[watch]?[String(decoding: name, as: UTF8.self)] ?? names[watch]?[""] {
                    changed.insert(path)
                }
                offset += header + length
            }
        }
    }
}
