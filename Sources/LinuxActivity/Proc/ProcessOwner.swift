import CLinux
import Glibc
import ScreenTimeModel

/// Whose a process is: the user it runs as, or, for a process in a user namespace below this one's, the owner of the
/// outermost such namespace. A rootless container (podman, `unshare --map-auto`) runs its processes under its owner's
/// subordinate ids (`/etc/subuid`), uids of no account; they are still that user's apps, counted and shielded as
/// theirs. The kernel says who made the namespace (`NS_GET_OWNER_UID`), so nothing the container's user writes can
/// change the answer.
public enum ProcessOwner {
    /// This process's user namespace, as `stat(2)` of `/proc/self/ns/user` names it; nil where it can't be read.
    private static let ownNamespace: (device: UInt64, inode: UInt64)? = {
        var status = stat()
        guard stat("/proc/self/ns/user", &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }()

    /// The user the process whose procfs folder is `directory` runs for; `uid` is the uid it runs as (the owner of
    /// that folder). One `stat(2)` for a process of this namespace; the user it runs as when its namespace can't be
    /// read (another user's process, for a daemon that runs as a user).
    public static func user(ofProcessIn directory: String, runningAs uid: UserID) -> UserID {
        guard let own = ownNamespace else { return uid }
        let owner = (directory + "/ns/user").withCString { clinux_user_namespace_owner($0, own.device, own.inode) }
        return owner >= 0 ? UserID(UInt32(truncatingIfNeeded: owner)) : uid
    }
}
