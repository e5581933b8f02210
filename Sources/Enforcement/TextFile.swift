import SystemPackage

// Small kernel files (/proc, cgroupfs) read and written in one call each. Kernel files report a size of 0, so
// reading goes until end of file rather than trusting stat.
enum TextFile {
    /// Reads the whole file at `path` as UTF-8.
    static func read(_ path: FilePath) throws(Errno) -> String {
        let descriptor = try open(path, .readOnly)
        defer { try? descriptor.close() }
        return try read(descriptor)
    }

    /// Reads an already open file from its start to its end as UTF-8.
    static func read(_ descriptor: FileDescriptor) throws(Errno) -> String {
        do {
            _ = try descriptor.seek(offset: 0, from: .start)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0) }
                if count == 0 { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        } catch {
            throw error as! Errno
        }
    }

    /// Writes `text` to the existing file at `path` in one `write(2)`, as cgroupfs requires.
    static func write(_ text: String, to path: FilePath) throws(Errno) {
        let descriptor = try open(path, .writeOnly)
        defer { try? descriptor.close() }
        do {
            _ = try descriptor.writeAll(Array(text.utf8))
        } catch {
            throw error as! Errno
        }
    }

    /// Opens `path` close-on-exec.
    static func open(_ path: FilePath, _ mode: FileDescriptor.AccessMode) throws(Errno) -> FileDescriptor {
        do {
            return try FileDescriptor.open(path, mode, options: [.closeOnExec])
        } catch {
            throw error as! Errno
        }
    }
}
