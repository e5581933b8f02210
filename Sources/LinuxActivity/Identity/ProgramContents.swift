import CGcrypt
import Glibc
import ScreenTimeModel

/// Programs known by their content as well as their path, so that a copy of an app's executable under another name,
/// or a hard link to it, is still that app: a guardian's limited user controls names, not contents.
///
/// The apps to know (`watched`, a guardian's limited apps) are learned from their running processes: the SHA-256 of
/// each one's executable, read through `/proc/PID/exe` (the file the process runs, even when renamed or deleted).
/// A process known only by its executable's name is then looked up by its content. Digests are cached by the file's
/// device, inode, modification time and size, so each program is read once.
///
/// Used on the collector's thread alone.
final class ProgramContents {
    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
        var modified: Int64
        var size: Int64
    }

    /// The apps whose programs are learned.
    var watched: Set<AppID> = []
    private var digests: [FileKey: [UInt8]] = [:]
    private var learned: [[UInt8]: AppID] = [:]
    let procRoot: String

    init(procRoot: String) { self.procRoot = procRoot }

    /// Learns the program of a process resolved as `app`, when `app` is watched (not from a process that only
    /// inherited it: a watched game's helpers and shells are not the game); or, for a process known only by its
    /// executable's name or by its parent's app, the watched app whose program it runs. Returns the app the process
    /// is.
    ///
    /// Only a process whose `executable` is its program is looked at: an interpreter's or the dynamic loader's
    /// runs a script or a program of its own (a game that is a shell script, such as Steam's launcher, runs the
    /// shell every terminal runs), and its content says nothing of which.
    func check(_ app: ResolvedApp, pid: ProcessID, executable: String?) -> ResolvedApp {
        guard !watched.isEmpty, let executable else { return app }
        let name = baseName(executable)
        guard !ProgramResolver.isInterpreter(name), !AppResolver.isDynamicLoader(name) else { return app }
        if watched.contains(app.id) {
            if app.source != .inherited, let digest = digest(of: pid), learned[digest] == nil {
                learned[digest] = app.id
            }
            return app
        }
        guard app.source == .executable || app.source == .inherited, let digest = digest(of: pid),
            let known = learned[digest]
        else { return app }
        return ResolvedApp(id: known, source: .executable)
    }

    /// The SHA-256 of the executable process `pid` runs; nil when it can't be read.
    ///
    /// The C functions are `open(2)`, `fstat(2)`, `mmap(2)` and `gcry_md_hash_buffer`.
    private func digest(of pid: ProcessID) -> [UInt8]? {
        let descriptor = open("\(procRoot)/\(pid.rawValue)/exe", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return nil }
        let key = FileKey(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            size: Int64(status.st_size))
        if let known = digests[key] { return known }
        let length = Int(status.st_size)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return nil
        }
        defer { munmap(mapped, length) }
        var digest = [UInt8](repeating: 0, count: 32)
        gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), &digest, mapped, length)
        digests[key] = digest
        return digest
    }
}
