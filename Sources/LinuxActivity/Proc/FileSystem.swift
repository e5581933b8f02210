import CLinux
import Glibc
import SystemPackage

/// The few file-system calls the collector makes, each wrapped once. Reads of `/proc` race with processes exiting:
/// a missing file is an expected outcome (nil), never an error.
enum FileSystem {
    /// Reads a whole (small) file into `buffer`, reusing its storage, and returns the byte count, or nil when the
    /// file can't be opened or read. The corresponding C functions are `open(2)` and `read(2)`.
    static func read(_ path: UnsafePointer<CChar>, into buffer: inout [UInt8]) -> Int? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var total = 0
        while true {
            if total == buffer.count { buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, 4096))) }
            let count = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress! + total, raw.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return total }
            total += count
        }
    }

    /// Reads a procfs file that the kernel makes whole at its first read (`stat`, `cgroup`, `loadavg`: not `cmdline`,
    /// which is copied from the process's memory) with one `read(2)`, as `read(_:into:)` of a descriptor does; with
    /// `status`, also the file's metadata (`fstat(2)`: a process's procfs files are its user's, as its folder is).
    /// Nil when the file can't be opened or read (the process has exited).
    static func readGenerated(
        _ path: UnsafePointer<CChar>, into buffer: inout [UInt8], status: UnsafeMutablePointer<stat>? = nil
    ) -> Int? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        if let status, fstat(descriptor, status) != 0 { return nil }
        return read(descriptor, into: &buffer)
    }

    /// Reads an open procfs file from its start with one `pread(2)` (procfs makes the whole text at once), into
    /// `buffer`, and returns the byte count, or nil when the read fails (`ESRCH`: the process has exited).
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in Glibc.pread(descriptor, raw.baseAddress!, raw.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count < buffer.count { return count }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
    }

    /// Reads a whole file as bytes, or nil.
    static func readBytes(_ path: String) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        guard let count = path.withCString({ read($0, into: &buffer) }) else { return nil }
        return Array(buffer[..<count])
    }

    /// Reads a whole file as UTF-8 text (invalid bytes repaired), or nil.
    static func readText(_ path: String) -> String? {
        readBytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The target of a symbolic link, or nil. The corresponding C function is `readlink(2)`.
    static func readLink(_ path: String) -> String? {
        var failure: Int32 = 0
        return readLink(path, failure: &failure)
    }

    /// The target of a symbolic link, or nil with `readlink(2)`'s `errno` in `failure`.
    static func readLink(_ path: String, failure: inout Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = Glibc.readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else {
            failure = errno
            return nil
        }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical absolute path (symbolic links resolved), or nil. The corresponding C function is `realpath(3)`.
    static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The names in a directory (without `.` and `..`), or nil. The corresponding C functions are `opendir(3)`,
    /// `readdir(3)`.
    static func list(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Calls `body` with each numeric entry of a directory (the pids of `/proc`) without allocating per entry.
    static func forEachNumericEntry(_ path: String, _ body: (Int32) -> Void) {
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            var value: Int32 = 0
            var isNumber = true
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                var sawDigit = false
                for byte in raw {
                    if byte == 0 { break }
                    guard byte >= 48, byte <= 57 else {
                        isNumber = false
                        return
                    }
                    value = value &* 10 &+ Int32(byte - 48)
                    sawDigit = true
                }
                isNumber = isNumber && sawDigit
            }
            if isNumber { body(value) }
        }
    }

    /// File metadata, or nil. The corresponding C function is `stat(2)`.
    static func status(_ path: String) -> stat? {
        var result = stat()
        return fstatat(AT_FDCWD, path, &result, 0) == 0 ? result : nil
    }

    /// The metadata of `path` as a process whose root is `root` (`/proc/PID/root`) sees it: absolute symbolic links
    /// and `..` resolved inside that root, not in this process's. Nil when it can't be reached. The corresponding C
    /// function is `openat2(2)` with `RESOLVE_IN_ROOT`.
    static func status(_ path: String, inRoot root: String) -> stat? {
        var result = stat()
        return clinux_stat_in_root(root, path, &result) == 0 ? result : nil
    }

    /// Whether `a` and `b` are the metadata of the same file (device and inode); false when either is missing.
    static func sameFile(_ a: stat?, _ b: stat?) -> Bool {
        guard let a, let b else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The text of the regular file `path` as a process whose root is `root` sees it (see `status(_:inRoot:)`), opened
    /// without waiting; nil when it can't be read, is no regular file, or holds more than `limit` bytes.
    static func readText(_ path: String, inRoot root: String, limit: Int = 64 * 1024) -> String? {
        readRegularFile(path, inRoot: root, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of the regular file `path` (as a process whose root is `root` sees it), opened without waiting: a
    /// FIFO or a device named where a file is expected can't block the reader. Nil when it can't be read, is no
    /// regular file, or holds more than `limit` bytes.
    static func readRegularFile(_ path: String, inRoot root: String = "/", limit: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { clinux_read_in_root(root, path, $0.baseAddress, UInt(limit)) }
        guard count >= 0 else { return nil }
        buffer.removeSubrange(count...)
        return buffer
    }

    /// Whether no one but root can change what `path` names: it (after links) and every folder above it belong to
    /// root, and none is writable by group or others, but for a folder above with the sticky bit (`/tmp`), in which
    /// no one may rename or remove root's entries.
    static func isRootsAlone(_ path: String) -> Bool {
        guard let real = realPath(path), let target = status(real), target.st_uid == 0, target.st_mode & 0o022 == 0
        else { return false }
        var folder = real
        while folder != "/" {
            folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
            if folder.isEmpty { folder = "/" }
            guard let above = status(folder), above.st_uid == 0,
                above.st_mode & 0o022 == 0 || above.st_mode & S_ISVTX != 0
            else { return false }
        }
        return true
    }

    /// A directory's device and inode (links followed): a walk that follows symbolic links enters each directory
    /// once, whatever links lead back to it (`applications/a -> .`).
    struct DirectoryIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The identity of the directory at `path`, or nil when it is none.
    static func directoryIdentity(_ path: String) -> DirectoryIdentity? {
        guard let result = status(path), (result.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return DirectoryIdentity(device: UInt64(result.st_dev), inode: UInt64(result.st_ino))
    }

    /// Whether `path` itself (not what it leads to) is a symbolic link.
    static func isSymbolicLink(_ path: String) -> Bool {
        var result = stat()
        return lstat(path, &result) == 0 && (result.st_mode & S_IFMT) == S_IFLNK
    }

    /// Whether a directory entry exists at `path`.
    static func isDirectory(_ path: String) -> Bool {
        guard let result = status(path) else { return false }
        return (result.st_mode & S_IFMT) == S_IFDIR
    }
}
