import Glibc
import ScreenTimeModel

/// Tells the collector whose desktop entries may have changed, so that a user's catalog follows apps installed,
/// changed or removed while the daemon runs.
///
/// One `inotify(7)` descriptor, non-blocking, for every user: a watch on each application folder of a user's data
/// directories and on its subfolders (the ids of entries in them are prefixed with the subfolder's name). A folder
/// that doesn't exist yet (`~/.local/share/applications` before the first app a user installs) is awaited through a
/// watch on its nearest existing ancestor, which counts only the creation of the next folder on the way. Where no
/// watch can be made (no descriptor or no watch left), the user's entries are read again every `rescanInterval`
/// calls. `changedUsers()` costs one `read(2)` that finds nothing while nothing changes.
///
/// Not `Sendable`: the collector's thread owns it.
final class DesktopEntryWatch {
    /// With folders that could not be watched, their users are reported changed every this many calls to
    /// `changedUsers()` (ten minutes at one tick a second).
    var rescanInterval = 600

    /// Who a watch matters to, and for which of its entries: any (nil), or only the one named (an ancestor awaiting
    /// the folder of that name).
    private struct Interest: Hashable {
        var user: UserID
        var name: String?
    }

    private let descriptor: Int32
    private var interests: [Int32: Set<Interest>] = [:]
    private var watchesOfUser: [UserID: Set<Int32>] = [:]
    private var unwatched: Set<UserID> = []
    private var calls = 0
    private var buffer = [UInt8](repeating: 0, count: 4096)

    private static let mask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR)

    /// Opens the descriptor; on failure (`EMFILE`) every user is rescanned periodically instead.
    ///
    /// The C function is `inotify_init1(2)`.
    init() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Watches the application folders of `dataDirectories` (each `DIR/applications` and its subfolders, or the
    /// nearest existing ancestor of one that is missing) for `user`, in place of what was watched for them before.
    ///
    /// The C function is `inotify_add_watch(2)`.
    func watch(dataDirectories: [String], for user: UserID) {
        forget(user)
        var complete = descriptor >= 0
        for directory in dataDirectories where complete {
            var visited: Set<FileSystem.DirectoryIdentity> = []
            complete = watchTree(directory + "/applications", for: user, visited: &visited)
            // A watch follows a link to the folder it names: a link pointed elsewhere (a dotfiles or profile switch)
            // is seen on the folder that holds the link, watched for that name as a missing folder's ancestor is.
            for path in [directory, directory + "/applications"] where complete && FileSystem.isSymbolicLink(path) {
                complete = watchAncestor(of: path, for: user)
            }
        }
        if !complete { unwatched.insert(user) }
    }

    /// Stops watching for `user`; folders nobody else needs are no longer watched.
    ///
    /// The C function is `inotify_rm_watch(2)`.
    func forget(_ user: UserID) {
        unwatched.remove(user)
        for watch in watchesOfUser.removeValue(forKey: user) ?? [] {
            interests[watch] = interests[watch]?.filter { $0.user != user }
            if interests[watch]?.isEmpty ?? false {
                interests[watch] = nil
                inotify_rm_watch(descriptor, watch)
            }
        }
    }

    /// The users whose application folders had an event since the last call (and, every `rescanInterval` calls,
    /// those whose folders could not all be watched). Never blocks.
    func changedUsers() -> Set<UserID> {
        var changed: Set<UserID> = []
        calls += 1
        if calls % rescanInterval == 0 { changed.formUnion(unwatched) }
        guard descriptor >= 0 else { return changed }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return changed }
            let header = MemoryLayout<inotify_event>.size
            var offset = 0
            while offset + header <= count {
                let (watch, mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += header + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    changed.formUnion(watchesOfUser.keys)
                    continue
                }
                for interest in interests[watch] ?? [] where interest.name == nil || interest.name == name {
                    changed.insert(interest.user)
                }
                // The folder is gone (deleted, or moved away): the kernel dropped the watch; the rebuild that
                // follows watches what is there now.
                if mask & UInt32(IN_IGNORED) != 0 {
                    for interest in interests.removeValue(forKey: watch) ?? [] {
                        watchesOfUser[interest.user]?.remove(watch)
                    }
                }
            }
        }
    }

    /// Watches `folder` and its subfolders, or the nearest existing ancestor when it is missing; false when no
    /// watch could be made.
    private func watchTree(
        _ folder: String, for user: UserID, depth: Int = 0, visited: inout Set<FileSystem.DirectoryIdentity>
    ) -> Bool {
        guard let identity = FileSystem.directoryIdentity(folder) else { return watchAncestor(of: folder, for: user) }
        // Each folder once and no deeper than the index reads (`DesktopEntryIndex.collect`).
        guard visited.insert(identity).inserted, depth <= DesktopEntryIndex.folderDepthLimit else { return true }
        guard add(folder, Interest(user: user, name: nil)) else { return false }
        for name in FileSystem.list(folder) ?? [] where FileSystem.isDirectory(folder + "/" + name) {
            guard watchTree(folder + "/" + name, for: user, depth: depth + 1, visited: &visited) else { return false }
        }
        return true
    }

    /// Watches the nearest existing folder above `folder` for a change of the name that leads down to it (the folder
    /// made, or a link of that name pointed elsewhere).
    private func watchAncestor(of folder: String, for user: UserID) -> Bool {
        var path = folder
        while let slash = path.lastIndex(of: "/"), slash != path.startIndex || path.count > 1 {
            let name = String(path[path.index(after: slash)...])
            path = slash == path.startIndex ? "/" : String(path[..<slash])
            if FileSystem.isDirectory(path) { return add(path, Interest(user: user, name: name)) }
        }
        return false
    }

    private func add(_ folder: String, _ interest: Interest) -> Bool {
        let watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else { return false }
        interests[watch, default: []].insert(interest)
        watchesOfUser[interest.user, default: []].insert(watch)
        return true
    }
}
