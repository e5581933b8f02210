/// This boot's identity (`/proc/sys/kernel/random/boot_id`), nil where it can't be read: what tells the records of
/// this boot (login sessions, the enforcer's state file) from another boot's.
public enum BootID {
    public static let current = (try? TextFile.read("/proc/sys/kernel/random/boot_id"))?.filter { !$0.isWhitespace }
}
