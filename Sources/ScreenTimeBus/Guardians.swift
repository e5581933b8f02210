import Glibc
import Synchronization

/// Who guards this machine's users: root and the members of the administrators' groups (`sudo`, `admin`, `wheel`),
/// who may become root anyway. A guardian's daemon tells them of each request for more time and lists every user's
/// requests to them; answering one still takes polkit's word (`org.screentime.manage`).
public enum Guardians {
    /// The administrators' groups.
    public static let groups = ["sudo", "admin", "wheel"]
    /// How long a verdict is kept: the password and group databases may sit on a directory server.
    static let kept: Duration = .seconds(60)
    private static let verdicts = Mutex<[UInt32: (guardian: Bool, at: ContinuousClock.Instant)]>([:])

    /// Whether the account of `uid` is a guardian: root, or a member (primary or supplementary) of an administrators'
    /// group. An account unknown to the password database is not. Safe from any thread (the reentrant lookups).
    public static func include(_ uid: UInt32) -> Bool {
        if uid == 0 { return true }
        let now = ContinuousClock.now
        if let known = verdicts.withLock({ $0[uid] }), now - known.at < kept { return known.guardian }
        let verdict = lookUp(uid)
        verdicts.withLock { cache in
            if cache.count > 1024 { cache.removeAll() }
            cache[uid] = (verdict, now)
        }
        return verdict
    }

    private static func lookUp(_ uid: UInt32) -> Bool {
        // The records point into `storage`, which lives through the whole lookup.
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: 16 * 1024)
        defer { storage.deallocate() }
        var administrators: Set<gid_t> = []
        for name in groups {
            var group = group()
            var found: UnsafeMutablePointer<group>?
            if getgrnam_r(name, &group, storage, 16 * 1024, &found) == 0, let found {
                administrators.insert(found.pointee.gr_gid)
            }
        }
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        guard !administrators.isEmpty, getpwuid_r(uid, &entry, storage, 16 * 1024, &found) == 0, found != nil,
            let name = entry.pw_name
        else { return false }
        if administrators.contains(entry.pw_gid) { return true }
        var count: Int32 = 64
        var members = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, entry.pw_gid, &members, &count) < 0 {
            // `count` now says how many there are.
            members = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, entry.pw_gid, &members, &count) >= 0 else { return false }
        }
        return members.prefix(Int(count)).contains(where: administrators.contains)
    }
}
