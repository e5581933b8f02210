import ScreenTimeModel

/// How a shield keeps an app from being used.
public enum ShieldMode: Hashable, Sendable, Codable {
    /// The app's processes must not run. Its own cgroups are frozen (preferred: `SIGCONT` cannot undo it and
    /// children forked later are held too); processes outside such a cgroup are stopped with `SIGSTOP`, re-sent
    /// every tick so that a `SIGCONT` from their owner lasts at most one tick.
    case freeze
    /// The app's processes must end: `SIGTERM`, then `SIGKILL` to any process still alive `grace` later.
    case terminate(grace: Duration)
}

/// One process of an app as the collector saw it at a tick.
public struct ObservedProcess: Hashable, Sendable, Codable {
    /// The process.
    public var identity: ProcessIdentity
    /// The cgroup the process lives in when that cgroup belongs to the app alone (see `CgroupPath.isAppOwnCgroup`);
    /// nil when the process shares its cgroup with others (a terminal's session scope), so it may not be frozen.
    public var ownCgroup: CgroupPath?
    /// Whether the process lives in a cgroup of the enforcer's own service manager that it may move the process out
    /// of (the user manager's tree, outside an app's own cgroup), into a scope of its own that can then be frozen.
    /// False for a login session's scope, which only root may change.
    public var confinable: Bool
    /// Whether a shield in force holds the process. False for a process of a shielded app that no shield holds (its
    /// user's ended, another user's goes on): what was held of it is let go.
    public var shielded: Bool

    /// Creates an observation.
    public init(
        _ identity: ProcessIdentity, ownCgroup: CgroupPath? = nil, confinable: Bool = false, shielded: Bool = true
    ) {
        self.identity = identity
        self.ownCgroup = ownCgroup
        self.confinable = ownCgroup == nil && confinable
        self.shielded = shielded
    }
}

/// One thing the enforcer does to the system.
public enum EnforcementAction: Hashable, Sendable, CustomStringConvertible {
    /// Freeze a cgroup of `app` and wait until the kernel reports it frozen.
    case freeze(CgroupPath, app: AppID)
    /// Thaw a cgroup of `app` that the enforcer froze.
    case thaw(CgroupPath, app: AppID)
    /// Send a signal to a process of `app`. A `.kill` always follows a `.terminate` whose grace period ran out:
    /// the process ignored `SIGTERM`.
    case signal(ProcessSignal, ProcessIdentity, app: AppID)
    /// Move a process of `app` that shares its cgroup into a new scope of its own and freeze that scope; the result
    /// is `.confined` with the scope's cgroup.
    case confine(ProcessIdentity, app: AppID)

    /// The app the action is for.
    public var app: AppID {
        switch self {
        case .freeze(_, let app), .thaw(_, let app), .signal(_, _, let app), .confine(_, let app): app
        }
    }

    /// `freeze /a/b.scope (org.example.Game)`.
    public var description: String {
        switch self {
        case .freeze(let cgroup, let app): "freeze \(cgroup) (\(app))"
        case .thaw(let cgroup, let app): "thaw \(cgroup) (\(app))"
        case .signal(let signal, let process, let app): "\(signal) \(process) (\(app))"
        case .confine(let process, let app): "confine \(process) (\(app))"
        }
    }
}

/// What became of one action when it was carried out.
public enum ActionResult: Hashable, Sendable {
    /// It took effect.
    case done
    /// Its target no longer exists: the process exited, the cgroup was removed. Not a failure.
    case gone
    /// The process was moved into this cgroup of its own, now frozen (the result of `.confine`).
    case confined(CgroupPath)
    /// It failed; the enforcer retries on the next tick where that makes sense.
    case failed(EnforcementError)
}
