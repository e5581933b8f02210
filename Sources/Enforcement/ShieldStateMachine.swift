import ScreenTimeModel

/// The shield lifecycle as a pure state machine: no clock, no I/O.
///
/// Each tick it is told which apps must be shielded (and how) and which processes each app has now; it answers
/// with the actions that make the system match, and remembers what it froze, stopped and asked to terminate.
/// The executor (`Enforcer`) carries the actions out and feeds each result back through `record(_:of:)`, so
/// the machine only keeps as held what really is, and retries failures on the next tick.
///
/// - A `.freeze` shield freezes the app's own cgroups; a process that shares a cgroup the enforcer's service manager
///   owns is first moved into a scope of its own (`.confine`), which is frozen; the remaining processes (a login
///   session's scope, which only root may change) get `SIGSTOP`, re-sent every tick and after each `recheck` that
///   finds one running again. A process resumed more than `resumeLimit` times within `resumeWindow` is terminated
///   instead (`SIGTERM`, then `SIGKILL` after `escalationGrace`). A cgroup that cannot be frozen (`EPERM`, `EBUSY`)
///   falls back to `SIGSTOP` of its processes.
/// - A `.terminate` shield sends `SIGTERM` once per process, then `SIGKILL` each tick from `grace` after that
///   until the process is gone.
/// - An app no longer shielded is released: exactly the cgroups it froze are thawed and the processes it stopped
///   are resumed; a release that fails is retried each tick until it succeeds.
public struct ShieldStateMachine: Sendable {
    struct AppState: Sendable {
        /// The shield in force; nil while what it held is being released.
        var mode: ShieldMode?
        var frozen: Set<CgroupPath> = []
        var stopped: Set<ProcessIdentity> = []
        /// Cgroups whose freeze failed for a reason a retry won't fix; their processes are stopped instead.
        var unfreezable: Set<CgroupPath> = []
        /// When `SIGTERM` was sent to each process being terminated.
        var terminating: [ProcessIdentity: ContinuousClock.Instant] = [:]
        /// Processes moved into a scope of their own, with that scope's cgroup (also in `frozen`).
        var confined: [ProcessIdentity: CgroupPath] = [:]
        /// Processes that could not be moved, with when the move failed; they are stopped instead, and moved again
        /// once `confineRetry` has passed (the manager may have been busy, or its bus restarting).
        var unconfinable: [ProcessIdentity: ContinuousClock.Instant] = [:]
        /// When each stopped process was found running again, within the last `resumeWindow`.
        var resumes: [ProcessIdentity: [ContinuousClock.Instant]] = [:]
        /// Stopped processes that were resumed too often: terminated although the shield freezes.
        var escalated: Set<ProcessIdentity> = []

        var holdsNothing: Bool { frozen.isEmpty && stopped.isEmpty && terminating.isEmpty }
    }

    private var apps: [AppID: AppState] = [:]
    /// A stopped process resumed more than this many times within `resumeWindow` is terminated.
    public static let resumeLimit = 5
    /// The window over which resumes are counted.
    public static let resumeWindow: Duration = .seconds(10)
    /// How long an escalated process has between `SIGTERM` and `SIGKILL`.
    public static let escalationGrace: Duration = .seconds(1)
    /// How long after a failed move into a scope the move is tried again.
    public static let confineRetry: Duration = .seconds(30)
    /// The time of the last tick, when the results of its actions come back through `record`.
    private var lastTick: ContinuousClock.Instant?
    /// Bumped whenever what is held or tracked (frozen cgroups, stopped or terminating processes) changes: `held`
    /// and `trackedProcesses` are the same until it does.
    public private(set) var changeCount: UInt64 = 0

    /// Creates a machine that holds nothing.
    public init() {}

    /// Creates a machine that takes over what a previous run held (from its state file). Each adopted app is
    /// released on the next tick unless that tick shields it again, in which case it stays frozen or stopped.
    public init(adopting held: HeldResources) {
        for entry in held.apps {
            apps[entry.app] = AppState(mode: nil, frozen: Set(entry.frozen), stopped: Set(entry.stopped))
        }
    }

    /// What is frozen or stopped now, for the state file.
    public var held: HeldResources {
        HeldResources(
            apps: apps.keys.sorted().compactMap { app in
                let state = apps[app]!
                guard !state.frozen.isEmpty || !state.stopped.isEmpty else { return nil }
                return HeldResources.App(
                    app: app, frozen: state.frozen.sorted(),
                    stopped: state.stopped.sorted {
                        $0.pid < $1.pid || ($0.pid == $1.pid && $0.startTime < $1.startTime)
                    })
            })
    }

    /// Every process the machine is still acting on (stopped or being terminated).
    public var trackedProcesses: Set<ProcessIdentity> {
        apps.values.reduce(into: []) { result, state in
            result.formUnion(state.stopped)
            result.formUnion(state.terminating.keys)
        }
    }

    /// Whether the machine holds or shields nothing at all.
    public var isIdle: Bool { apps.isEmpty }

    /// Whether a later tick may act otherwise on the same input, as time passes: a process asked to terminate gets
    /// `SIGKILL` once its grace is over, one that could not be moved into a scope is moved again after
    /// `confineRetry`.
    public var waitsOnTime: Bool { apps.values.contains { !$0.terminating.isEmpty || !$0.unconfinable.isEmpty } }

    /// The processes stopped with `SIGSTOP` under a shield in force: those a `SIGCONT` from their owner could resume,
    /// for `recheck(running:at:)`.
    public var stoppedUnderShield: [ProcessIdentity] {
        apps.values.flatMap { $0.mode == .freeze ? Array($0.stopped) : [] }
    }

    /// Whether any process is held by `SIGSTOP` under a shield in force (`stoppedUnderShield` is not empty), without
    /// building the list: asked at every pass of the daemon's loop.
    public var holdsStoppedUnderShield: Bool {
        apps.values.contains { $0.mode == .freeze && !$0.stopped.isEmpty }
    }

    /// Between ticks: `running` are processes of `stoppedUnderShield` found running again. Each is stopped again, or,
    /// once resumed more than `resumeLimit` times within `resumeWindow`, terminated.
    public mutating func recheck(running: Set<ProcessIdentity>, at now: ContinuousClock.Instant) -> [EnforcementAction]
    {
        var actions: [EnforcementAction] = []
        for app in apps.keys.sorted() {
            guard var state = apps[app], state.mode == .freeze else { continue }
            for process in state.stopped.sorted(by: { $0.pid < $1.pid }) where running.contains(process) {
                let recent = (state.resumes[process] ?? []).filter { $0.duration(to: now) < Self.resumeWindow } + [now]
                state.resumes[process] = recent
                if recent.count > Self.resumeLimit {
                    state.escalated.insert(process)
                    state.terminating[process] = now
                    actions.append(.signal(.terminate, process, app: app))
                } else {
                    actions.append(.signal(.suspend, process, app: app))
                }
            }
            store(state, for: app)
        }
        return actions
    }

    /// A tick: `desired` is every app that must be shielded now, `observed` each app's processes now.
    ///
    /// - Returns: the actions to carry out, in order (releases before terminations, freezes before stops).
    public mutating func tick(
        desired: [AppID: ShieldMode], observed: [AppID: [ObservedProcess]], at now: ContinuousClock.Instant
    ) -> [EnforcementAction] {
        lastTick = now
        var actions: [EnforcementAction] = []
        for app in Set(desired.keys).union(apps.keys).sorted() {
            var state = apps[app] ?? AppState()
            state.mode = desired[app]
            let processes = (observed[app] ?? []).filter(\.shielded)
            switch state.mode {
            case nil:
                actions += releaseActions(app, state)
                state.terminating = [:]
            case .freeze:
                state.terminating = state.terminating.filter { state.escalated.contains($0.key) }
                let released = (observed[app] ?? []).filter { !$0.shielded }
                actions += freezeActions(app, &state, processes, releasing: released, now: now)
                actions += terminateActions(
                    app, &state, processes.filter { state.escalated.contains($0.identity) },
                    grace: Self.escalationGrace, now: now)
            case .terminate(let grace):
                actions += releaseActions(app, state)
                actions += terminateActions(app, &state, processes, grace: grace, now: now)
            }
            store(state, for: app)
        }
        return actions
    }

    /// Releases every app, as on a clean stop: the returned actions thaw and resume everything held. Apps stay
    /// unshielded until a tick shields them again.
    public mutating func releaseAll() -> [EnforcementAction] {
        var actions: [EnforcementAction] = []
        for app in apps.keys.sorted() {
            var state = apps[app]!
            state.mode = nil
            state.terminating = [:]
            actions += releaseActions(app, state)
            store(state, for: app)
        }
        return actions
    }

    /// Takes in the result of carrying out `action`.
    public mutating func record(_ result: ActionResult, of action: EnforcementAction) {
        guard var state = apps[action.app] else { return }
        switch (action, result) {
        case (.freeze, .done), (.freeze, .confined):
            return
        case (.confine(let process, _), .confined(let cgroup)):
            state.confined[process] = cgroup
            state.unconfinable[process] = nil
            state.frozen.insert(cgroup)
        case (.confine(let process, _), .failed):
            // The enforcer stopped it instead (`SIGSTOP`); it is held that way from now on.
            state.unconfinable[process] = lastTick ?? .now
            state.stopped.insert(process)
        case (.confine, _):
            return
        case (.freeze, .failed(let error)) where error.code == .freezeTimedOut:
            // The request is written and the kernel completes it later: keep it held so that it gets thawed.
            return
        case (.freeze(let cgroup, _), .gone):
            state.frozen.remove(cgroup)
        case (.freeze(let cgroup, _), .failed):
            state.frozen.remove(cgroup)
            state.unfreezable.insert(cgroup)
        case (.thaw(let cgroup, _), .done), (.thaw(let cgroup, _), .gone):
            state.frozen.remove(cgroup)
            state.confined = state.confined.filter { $0.value != cgroup }
            state.unfreezable.remove(cgroup)
        case (.thaw, .failed), (.thaw, .confined):
            return
        case (.signal(.suspend, let process, _), .gone), (.signal(.suspend, let process, _), .failed):
            state.stopped.remove(process)
        case (.signal(.resume, let process, _), .done), (.signal(.resume, let process, _), .gone):
            state.stopped.remove(process)
        case (.signal(.terminate, let process, _), .done) where state.escalated.contains(process):
            // Terminated, not stopped: a resume of a process on its way out is no longer a shield's concern.
            state.stopped.remove(process)
        case (.signal(.terminate, let process, _), .gone), (.signal(.terminate, let process, _), .failed),
            (.signal(.kill, let process, _), .gone):
            state.terminating[process] = nil
            state.stopped.remove(process)
        case (.signal, _):
            return
        }
        store(state, for: action.app)
    }

    /// Keeps an app's new state (forgetting an app that is neither shielded nor holds anything) and counts a change
    /// of what it holds.
    private mutating func store(_ state: AppState, for app: AppID) {
        let old = apps[app]
        let new = state.mode == nil && state.holdsNothing ? nil : state
        if old?.frozen != new?.frozen || old?.stopped != new?.stopped || old?.terminating != new?.terminating {
            changeCount &+= 1
        }
        apps[app] = new
    }

    private func releaseActions(_ app: AppID, _ state: AppState) -> [EnforcementAction] {
        state.frozen.sorted().map { .thaw($0, app: app) }
            + state.stopped.sorted { $0.pid < $1.pid }.map { .signal(.resume, $0, app: app) }
    }

    /// Holds the app's `processes` under a freeze shield, and lets go of what it held of `released` (processes of the
    /// app no shield holds any more: another user's, whose own shield of it ended).
    private func freezeActions(
        _ app: AppID, _ state: inout AppState, _ processes: [ObservedProcess], releasing released: [ObservedProcess],
        now: ContinuousClock.Instant
    ) -> [EnforcementAction] {
        // Kept as held until their release is done (a failed one is tried again next tick), but held no more.
        // A cgroup that also holds a shielded process stays frozen.
        let holding = Set(processes.compactMap { $0.ownCgroup ?? state.confined[$0.identity] })
        let thawing = Set(released.compactMap { $0.ownCgroup ?? state.confined[$0.identity] })
            .intersection(state.frozen).subtracting(holding)
        let resuming = Set(released.map(\.identity)).intersection(state.stopped)
        var loose: Set<ProcessIdentity> = state.stopped.subtracting(state.escalated).subtracting(resuming)
        var confine: [ProcessIdentity] = []
        // Stopped before its cgroup was frozen (a move that failed, then succeeded): the frozen cgroup holds it, and
        // it is resumed inside it, so that its owner's SIGCONT is no resume and a thaw lets it run.
        var frozenAndStopped: [ProcessIdentity] = []
        let frozenBefore = state.frozen
        for process in processes where !state.escalated.contains(process.identity) {
            // Observed outside the scope it was moved into (its owner moved it on, which thaws it): moved again.
            if process.ownCgroup == nil, state.confined[process.identity] != nil {
                state.confined[process.identity] = nil
            }
            if let cgroup = process.ownCgroup ?? state.confined[process.identity], !state.unfreezable.contains(cgroup) {
                state.frozen.insert(cgroup)
                if frozenBefore.contains(cgroup), loose.remove(process.identity) != nil {
                    frozenAndStopped.append(process.identity)
                }
            } else if process.confinable, state.confined[process.identity] == nil,
                state.unconfinable[process.identity].map({ $0.duration(to: now) >= Self.confineRetry }) ?? true
            {
                confine.append(process.identity)
            } else {
                loose.insert(process.identity)
            }
        }
        state.stopped = loose.union(resuming).union(frozenAndStopped)
        // What is kept of processes no longer there (exited, or released) goes with them.
        let seen = Set(processes.map(\.identity))
        state.unconfinable = state.unconfinable.filter { seen.contains($0.key) }
        state.resumes = state.resumes.filter { seen.contains($0.key) }
        state.escalated = state.escalated.filter { seen.contains($0) || state.terminating[$0] != nil }
        return thawing.sorted().map { .thaw($0, app: app) }
            + resuming.sorted { $0.pid < $1.pid }.map { .signal(.resume, $0, app: app) }
            + state.frozen.subtracting(thawing).sorted().map { .freeze($0, app: app) }
            + frozenAndStopped.sorted { $0.pid < $1.pid }.map { .signal(.resume, $0, app: app) }
            + confine.sorted { $0.pid < $1.pid }.map { .confine($0, app: app) }
            + loose.sorted { $0.pid < $1.pid }.map { .signal(.suspend, $0, app: app) }
    }

    private func terminateActions(
        _ app: AppID, _ state: inout AppState, _ processes: [ObservedProcess], grace: Duration,
        now: ContinuousClock.Instant
    ) -> [EnforcementAction] {
        var actions: [EnforcementAction] = []
        for (process, sentAt) in state.terminating.sorted(by: { $0.key.pid < $1.key.pid })
        where sentAt.duration(to: now) >= grace {
            actions.append(.signal(.kill, process, app: app))
        }
        for process in processes.map(\.identity).sorted(by: { $0.pid < $1.pid })
        where state.terminating[process] == nil {
            state.terminating[process] = now
            actions.append(.signal(.terminate, process, app: app))
        }
        return actions
    }
}
