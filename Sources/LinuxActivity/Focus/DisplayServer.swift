import Glibc
import ScreenTimeModel

/// Whether a process serves a display of its own: a Wayland compositor or an X server, which a person can run in a
/// window of their desktop (`sway` typed into GNOME's terminal, Xephyr, gamescope) and play in. The desktop then
/// reports that window as the one in front, and what runs in it is not seen.
///
/// Known by the sockets it listens on, not by its name (a renamed copy listens on the same): a Wayland display's (a
/// socket with `NAME.lock` beside it, as libwayland makes) or an X display's (`/tmp/.X11-unix/XN`, or the abstract
/// socket of that name).
public enum DisplayServer {
    /// Whether process `pid` listens on a Wayland or X display's socket. Reads its descriptors and its network
    /// namespace's `net/unix` (or asks `listening` for the latter, to read it once for several processes): not for
    /// every tick.
    public static func serves(
        _ pid: ProcessID, procRoot: String = "/proc", listening: (() -> Set<Substring>)? = nil
    ) -> Bool {
        let sockets = socketInodes(of: pid, procRoot: procRoot)
        return !sockets.isEmpty
            && !sockets.isDisjoint(with: listening?() ?? listeningSockets(seenBy: pid, procRoot: procRoot))
    }

    /// The inodes of the sockets process `pid` holds open.
    static func socketInodes(of pid: ProcessID, procRoot: String) -> Set<Substring> {
        let folder = "\(procRoot)/\(pid.rawValue)"
        var sockets: Set<Substring> = []
        FileSystem.forEachNumericEntry(folder + "/fd") { descriptor in
            guard let target = FileSystem.readLink("\(folder)/fd/\(descriptor)"), target.hasPrefix("socket:[") else {
                return
            }
            sockets.insert(target.dropFirst(8).dropLast())
        }
        return sockets
    }

    /// The inodes of the display sockets listening in the network namespace of process `pid` (its `net/unix`), with
    /// their paths looked at through its root.
    public static func listeningSockets(seenBy pid: ProcessID, procRoot: String = "/proc") -> Set<Substring> {
        let folder = "\(procRoot)/\(pid.rawValue)"
        guard let table = FileSystem.readText(folder + "/net/unix") else { return [] }
        var listening: Set<Substring> = []
        // Num RefCount Protocol Flags Type St Inode Path; flag 0x10000 (`__SO_ACCEPTCON`) marks a listening socket.
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0 else { continue }
            let path = fields[7...].joined(separator: " ")
            if path.hasPrefix("/tmp/.X11-unix/X") || path.hasPrefix("@/tmp/.X11-unix/X")
                || (path.hasPrefix("/") && FileSystem.status(folder + "/root" + path + ".lock") != nil)
            {
                listening.insert(fields[6])
            }
        }
        return listening
    }
}
