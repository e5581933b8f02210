import ScreenTimeModel

/// Moves a process out of a cgroup it shares with others into a new scope of its own, which can then be frozen.
///
/// The daemon's implementation asks the service manager it runs under (`StartTransientUnit` with `PIDs=`); a user
/// manager can move only processes in its own tree (`user@UID.service`), not those of a login session's scope.
public protocol ProcessConfiner {
    /// Moves `process` (of `app`) into a new scope and returns that scope's cgroup once the process is in it; nil
    /// when the process is gone.
    ///
    /// - Throws: `EnforcementError` with `.confineFailed` when the service manager refused or did not answer.
    func confine(_ process: ProcessIdentity, app: AppID) throws(EnforcementError) -> CgroupPath?
}
