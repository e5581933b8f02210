import CGcrypt
import CLinux
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
    /// An interpreter's process is not looked at: it runs a script of its own (a game that is a shell script, such
    /// as Steam's launcher, runs the shell every terminal runs), and the interpreter's content says nothing of
    /// which. One of the dynamic loader (`ld.so PROGRAM`) is looked at by the program it loaded: a renamed copy of a
    /// game run through the loader is the game.
    func check(_ app: ResolvedApp, process entry: ProcessEntry) -> ResolvedApp {
        guard !watched.isEmpty, let executable = entry.executable,
            !ProgramResolver.isInterpreter(baseName(executable))
        else { return app }
        if watched.contains(app.id) {
            if app.source != .inherited, let digest = digest(of: entry, executable: executable),
                learned[digest] == nil
            {
                learned[digest] = app.id
            }
            return app
        }
        guard app.source == .executable || app.source == .inherited,
            let digest = digest(of: entry, executable: executable), let known = learned[digest]
        else { return app }
        return ResolvedApp(id: known, source: .executable)
    }

    /// The SHA-256 of the program the process runs: its executable, or the program the dynamic loader loaded. Nil
    /// when it can't be read, or the loader has loaded none yet.
    private func digest(of entry: ProcessEntry, executable: String) -> [UInt8]? {
        let process = entry.folder(in: procRoot)
        guard AppResolver.isDynamicLoader(baseName(executable)) else {
            return digest(of: open(process + "/exe", O_RDONLY | O_CLOEXEC))
        }
        guard let loaded = AppResolver(procRoot: procRoot).loadedProgram(of: entry, loader: executable) else {
            return nil
        }
        // The very file mapped, also renamed, replaced or removed since. Without the capability `map_files` needs
        // (in a container), the file at its path in the process's root: a file put there after the mapping is hashed
        // instead, which a user can time (never to another app's advantage than the one they put there).
        let mapFile = open(process + "/map_files/" + loaded.mapFilesName, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        return digest(of: mapFile >= 0 ? mapFile : clinux_open_in_root(process + "/root", loaded.path))
    }

    /// The SHA-256 of the file open as `descriptor` (closed here) when it is a regular file; nil when it can't be
    /// read.
    ///
    /// The C functions are `fstat(2)`, `mmap(2)` and `gcry_md_hash_buffer`.
    func digest(of descriptor: Int32) -> [UInt8]? {
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0, status.st_mode & S_IFMT == S_IFREG else {
            return nil
        }
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
