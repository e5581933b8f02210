import Glibc

/// Scheduling for the thread that enforces shields, so that a machine full of busy loops cannot delay a shield.
/// Both choices set `SCHED_RESET_ON_FORK`: processes the thread starts get normal priority back.
public enum EnforcerPriority: Hashable, Sendable {
    /// Real-time round-robin (`SCHED_RR`) at `priority` 1…99. Needs `CAP_SYS_NICE` or an `RLIMIT_RTPRIO`.
    case realTime(priority: Int32)
    /// Normal scheduling with a nice value (−20…19; below 0 needs `CAP_SYS_NICE` or an `RLIMIT_NICE`).
    case nice(Int32)

    /// Applies this priority to the calling thread (not the whole process).
    ///
    /// - Throws: `.priorityFailed` with the `Errno` (`EPERM` without the privilege).
    public func applyToCurrentThread() throws(EnforcementError) {
        let resetOnFork = Syscall.resetOnForkFlag
        do {
            switch self {
            case .realTime(let priority):
                try Syscall.setScheduler(policy: Int32(SCHED_RR) | resetOnFork, priority: priority)
            case .nice(let value):
                // With the flag set, a negative nice value is also reset to 0 in children.
                try Syscall.setScheduler(policy: Int32(SCHED_OTHER) | resetOnFork, priority: 0)
                try Syscall.setNice(value)
            }
        } catch {
            throw EnforcementError(.priorityFailed, "setting the enforcer thread's priority to \(self)", errno: error)
        }
    }
}
