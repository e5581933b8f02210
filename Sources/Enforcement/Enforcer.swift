import ScreenTimeModel
import SystemPackage

/// Carries out the shield state machine's actions on the real system and keeps its state file current.
///
/// Call `apply(desired:observed:at:)` once per tick, `releaseAll()` on a clean stop. At start-up call
/// `adoptStateFile()` first, so that what a crashed run froze or stopped is released (or kept, when the first
/// tick shields the same app again).
///
/// The state file is written before actions that freeze or stop anything are carried out (so a crash in between
/// still finds them listed) and again afterwards with what really is held.
///
/// Not `Sendable`: it owns pidfds. Keep it in one task or thread, ideally raised with `EnforcerPriority`.
public final class Enforcer {
    private var machine = ShieldStateMachine()
    private let signaller: ProcessSignaller
    private let freezer: Freezer?
    private let confiner: (any ProcessConfiner)?
    private let stateFile: StateFile
    private let freezeTimeout: Duration
    /// Cgroups whose freeze did not settle within `freezeTimeout` (a task stuck in uninterruptible sleep, as on a hung
    /// FUSE mount, holds it back): the kernel completes the freeze on its own once the task wakes, so later ticks
    /// only look at it instead of waiting again, which would stall the loop `freezeTimeout` a tick.
    private var unsettledFreezes: Set<CgroupPath> = []
    private var savedState = HeldResources()
    /// The machine's `changeCount` when the state file last matched it, and when the signaller last dropped the
    /// pidfds of processes no longer tracked: a tick that changes nothing rebuilds neither list.
    private var savedChangeCount: UInt64?
    private var retainedChangeCount: UInt64?
    /// The last tick's inputs and actions while they still hold: the machine's actions follow from the inputs and
    /// what it holds, so a tick with the same inputs, nothing held changed since (`changeCount`) and only `.freeze`
    /// shields (whose actions don't depend on the time) asks for the same actions again. `seen` is every observed
    /// process.
    private var steady:
        (
            desired: [AppID: ShieldMode], observed: [AppID: [ObservedProcess]], changeCount: UInt64,
            actions: [EnforcementAction], seen: Set<ProcessIdentity>
        )?

    /// Creates an enforcer; nothing is read or changed yet.
    ///
    /// - Parameters:
    ///   - stateFile: where to record what is held.
    ///   - freezer: the cgroup2 freezer; nil where there is no cgroup2 (every shield then uses `SIGSTOP`).
    ///   - confiner: moves a process that shares its cgroup into a scope of its own; nil where the service manager
    ///     can't be asked (such processes are then stopped with `SIGSTOP`).
    ///   - signaller: sends signals through pidfds.
    ///   - freezeTimeout: how long to wait for `cgroup.events` to report a freeze or thaw.
    public init(
        stateFile: StateFile, freezer: Freezer?, confiner: (any ProcessConfiner)? = nil,
        signaller: ProcessSignaller = ProcessSignaller(), freezeTimeout: Duration = .seconds(2)
    ) {
        self.stateFile = stateFile
        self.freezer = freezer
        self.confiner = freezer == nil ? nil : confiner
        self.signaller = signaller
        self.freezeTimeout = freezeTimeout
    }

    /// What is frozen or stopped now.
    public var held: HeldResources { machine.held }

    /// Whether nothing is shielded, held or being released: a tick with nothing to shield has nothing to do.
    public var isIdle: Bool { machine.isIdle }

    /// Takes over what the state file lists from a previous run. Call before the first tick; the first tick then
    /// releases every adopted app it does not shield. Returns what it took over.
    ///
    /// - Throws: `.stateFileFailed` when the file exists but cannot be read; nothing is adopted then.
    @discardableResult
    public func adoptStateFile() throws(EnforcementError) -> HeldResources {
        let held = try stateFile.load()
        machine = ShieldStateMachine(adopting: held)
        savedState = held
        savedChangeCount = nil
        retainedChangeCount = nil
        steady = nil
        return held
    }

    /// One tick: makes the system match `desired` given each app's processes in `observed`.
    ///
    /// - Parameters:
    ///   - desired: every app to be shielded now, with its mode; apps absent are released.
    ///   - observed: each app's processes now (apps not shielded may be left out).
    ///   - now: the monotonic time of the tick, for grace periods.
    public func apply(
        desired: [AppID: ShieldMode], observed: [AppID: [ObservedProcess]], at now: ContinuousClock.Instant
    ) -> EnforcementReport {
        // Without a freezer no cgroup can be frozen: stop those processes from the first tick on. Without a confiner
        // nothing can be moved into a scope of its own.
        let observed =
            freezer == nil
            ? observed.mapValues { $0.map { ObservedProcess($0.identity, shielded: $0.shielded) } }
            : confiner == nil
                ? observed.mapValues {
                    $0.map { ObservedProcess($0.identity, ownCgroup: $0.ownCgroup, shielded: $0.shielded) }
                } : observed
        if let steady, steady.changeCount == machine.changeCount, Self.same(steady.desired, desired),
            Self.same(steady.observed, observed)
        {
            return run(steady.actions, seen: steady.seen)
        }
        let before = machine.changeCount
        let actions = machine.tick(desired: desired, observed: observed, at: now)
        // The run-time files of processes no longer held by SIGSTOP (rechecks, which keep them, run only while some
        // are).
        if !machine.holdsStoppedUnderShield { runTimes.keep(only: []) }
        let seen = Set(observed.values.joined().map(\.identity))
        let report = run(actions, seen: seen)
        // A freeze's actions are the same from tick to tick, unless a process awaits its SIGKILL or another move.
        let timeless = desired.values.allSatisfy { $0 == .freeze } && !machine.waitsOnTime
        steady = timeless && machine.changeCount == before ? (desired, observed, before, actions, seen) : nil
        return report
    }

    /// Whether two dictionaries are equal, without comparing them when they are the same storage: a caller passing
    /// the wanted and observed sets it passed last time (kept while nothing changed) costs no hashing. A dictionary is
    /// one reference to its storage, which isn't changed in place while another dictionary shares it.
    private static func same<Value: Equatable>(_ first: [AppID: Value], _ second: [AppID: Value]) -> Bool {
        let shared = withUnsafeBytes(of: first) { one in
            withUnsafeBytes(of: second) { other in one.elementsEqual(other) }
        }
        return shared || first == second
    }

    /// Whether processes are held by `SIGSTOP` alone, which their owner can undo with `SIGCONT`: the caller should
    /// `recheckStopped(at:)` often (every 100 ms) while this holds.
    public var holdsStoppedProcesses: Bool { machine.holdsStoppedUnderShield }

    /// Between ticks: finds processes held by `SIGSTOP` that run again (their owner sent `SIGCONT`) and stops them
    /// again, or terminates one resumed too often (`report.escalated`).
    public func recheckStopped(at now: ContinuousClock.Instant) -> EnforcementReport {
        let stopped = machine.stoppedUnderShield
        runTimes.keep(only: stopped)
        let running = Set(stopped.filter(runTimes.hasRun))
        guard !running.isEmpty else { return EnforcementReport() }
        steady = nil
        let actions = machine.recheck(running: running, at: now)
        for process in running { runTimes.rebaseline(process) }
        var report = run(actions, seen: running)
        // Only those the signal reached: the person is told the app was closed.
        report.escalated = report.entries.compactMap { entry in
            if case .signal(.terminate, let process, let app) = entry.action, entry.result == .done {
                (app, process)
            } else {
                nil
            }
        }
        return report
    }

    /// How long each process held by `SIGSTOP` has run, checked between ticks.
    private let runTimes = RunTimeWatch()

    /// Releases everything held: thaws what was frozen, resumes what was stopped. A report with failures means
    /// something is still held and listed in the state file; call again to retry.
    public func releaseAll() -> EnforcementReport {
        steady = nil
        return run(machine.releaseAll())
    }

    /// Carries out `actions`; the processes in `seen` were observed running this tick.
    private func run(_ actions: [EnforcementAction], seen: Set<ProcessIdentity> = []) -> EnforcementReport {
        var report = EnforcementReport()
        saveIfChanged(into: &report)
        for action in actions {
            let result = perform(action, seen: seen)
            machine.record(result, of: action)
            report.entries.append(.init(action: action, result: result))
            // A move into a scope can take a second: what it froze or stopped is on file before the next begins, so
            // that a daemon killed meanwhile leaves nothing held that its state file doesn't name.
            if case .confine = action { saveIfChanged(into: &report) }
        }
        saveIfChanged(into: &report)
        if retainedChangeCount != machine.changeCount {
            signaller.retain(only: machine.trackedProcesses)
            retainedChangeCount = machine.changeCount
        }
        return report
    }

    private func perform(_ action: EnforcementAction, seen: Set<ProcessIdentity>) -> ActionResult {
        do throws(EnforcementError) {
            switch action {
            case .signal(let signal, let process, _):
                let seenAlive = seen.contains(process)
                return try signaller.send(signal, to: process, seenAlive: seenAlive) == .delivered ? .done : .gone
            case .freeze(let cgroup, _):
                guard let freezer else {
                    return .failed(EnforcementError(.freezeFailed, "freezing \(cgroup): no cgroup2 file system"))
                }
                let waited = !unsettledFreezes.contains(cgroup)
                do throws(EnforcementError) {
                    let outcome = try freezer.freeze(cgroup, timeout: waited ? freezeTimeout : .zero)
                    unsettledFreezes.remove(cgroup)
                    return outcome == .settled ? .done : .gone
                } catch {
                    if error.code == .freezeTimedOut { unsettledFreezes.insert(cgroup) }
                    throw error
                }
            case .confine(let process, let app):
                guard let confiner, let freezer else {
                    return .failed(
                        EnforcementError(.confineFailed, "moving \(process) into a scope: no service manager"))
                }
                let cgroup: CgroupPath?
                do {
                    cgroup = try confiner.confine(process, app: app)
                } catch {
                    // Held at once all the same: stopped, as a process that can't be moved is from now on.
                    _ = try? signaller.send(.suspend, to: process, seenAlive: seen.contains(process))
                    return .failed(error)
                }
                guard let cgroup else { return .gone }
                // Frozen at once, so the move opens no window; a freeze that fails is retried by the next tick.
                _ = try? freezer.freeze(cgroup, timeout: freezeTimeout)
                return .confined(cgroup)
            case .thaw(let cgroup, _):
                guard let freezer else {
                    return .failed(EnforcementError(.thawFailed, "thawing \(cgroup): no cgroup2 file system"))
                }
                unsettledFreezes.remove(cgroup)
                return try freezer.thaw(cgroup, timeout: freezeTimeout) == .settled ? .done : .gone
            }
        } catch {
            return .failed(error)
        }
    }

    private func saveIfChanged(into report: inout EnforcementReport) {
        guard savedChangeCount != machine.changeCount else { return }
        let held = machine.held
        guard held != savedState else {
            savedChangeCount = machine.changeCount
            return
        }
        do {
            try stateFile.save(held)
            savedState = held
            savedChangeCount = machine.changeCount
        } catch {
            report.stateFileError = error
        }
    }
}
