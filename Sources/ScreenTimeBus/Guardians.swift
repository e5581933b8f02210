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
        // The records point into `storage`, which lives through the whole lookup; a group of many members (from a
        // directory) may need more than the first size.
        var capacity = 16 * 1024
        var storage = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        defer { storage.deallocate() }
        var administrators: Set<gid_t> = []
        for name in groups {
            var group = group()
            var found: UnsafeMutablePointer<group>?
            var result = getgrnam_r(name, &group, storage, capacity, &found)
            while result == ERANGE, capacity < 4 << 20 {
                storage.deallocate()
                capacity *= 4
                storage = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
                result = getgrnam_r(name, &group, storage, capacity, &found)
            }
            if result == 0, found != nil { administrators.insert(group.gr_gid) }
        }
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        guard !administrators.isEmpty, getpwuid_r(uid, &entry, storage, capacity, &found) == 0, found != nil,
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
