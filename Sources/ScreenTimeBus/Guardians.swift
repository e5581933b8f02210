import Glibc

/// Who guards this machine's users: root and the members of the administrators' groups (`sudo`, `admin`, `wheel`),
/// who may become root anyway. A guardian's daemon tells them of each request for more time and lists every user's
/// requests to them; answering one still takes polkit's word (`org.screentime.manage`).
public enum Guardians {
    /// The administrators' groups.
    public static let groups = ["sudo", "admin", "wheel"]

    /// Whether the account of `uid` is a guardian: root, or a member (primary or supplementary) of an administrators'
    /// group. An account unknown to the password database is not.
    public static func include(_ uid: UInt32) -> Bool {
        if uid == 0 { return true }
        let administrators = Set(groups.compactMap { getgrnam($0)?.pointee.gr_gid })
        guard !administrators.isEmpty, let entry = getpwuid(uid), let name = entry.pointee.pw_name else {
            return false
        }
        let primary = entry.pointee.pw_gid
        var count: Int32 = 64
        var members = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &members, &count) < 0 {
            // `count` now says how many there are.
            members = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primary, &members, &count) >= 0 else { return false }
        }
        return members.prefix(Int(count)).contains(where: administrators.contains)
    }
}
