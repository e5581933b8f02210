import Enforcement
import Foundation
import Logging
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// The daemon's decisions as a pure state machine: no clock, no I/O, no logging.
///
/// Events come in (a restart with the last snapshot, a policy loaded or refused, a tick's samples, a wake-up the
/// engine asked for, an answer to a notification, a store fault, a clock change) and actions go out (notify, write,
/// run an extension, log). What is shielded is state (`shields`, `mode(for:user:)`), which the daemon's enforcement
/// follows on every tick. `Daemon` carries the actions out; tests drive the runtime alone with scripted events.
public struct DaemonRuntime {
    /// Something that happened.
    public enum Event {
        /// The daemon started, with the engine's last snapshot (nil on a first start or when none could be read):
        /// the snapshot's shields are in force at once, before any policy or sample.
        case restarted(EngineSnapshot?)
        /// Policies were read and checked: the plan is their translation into activities and stores.
        case policyLoaded(PolicyPlan)
        /// The policy file could not be used; the policy in force stays.
        case policyRefused(PolicyError)
        /// A tick's samples; `revision` changes whenever the collector's sessions or apps may have changed.
        case tick([UsageSample], revision: UInt64)
        /// The instant the engine asked to be woken at has come.
        case wakeUp
        /// Someone pressed a button of a shield notification.
        case answered(NotificationAnswer)
        /// The store could not be written, or wrote again after faults (nil).
        case storeFault(String?)
        /// An event for the engine from elsewhere than the policy (a D-Bus client's activity or settings store),
        /// handled like the policy's own: its callbacks, shields and wake-ups follow.
        case engine(ActivityEngine.Event)
        /// The collector saw these apps (new ones, or the same with a new name or category): their labels are kept in
        /// the store so reports still name them once they are uninstalled.
        case appsSeen([AppLabelRecord])
        /// Notifications apps sent, seen on the session bus.
        case appNotificationsSeen([AppNotificationRecord])
    }

    /// Something the daemon must do.
    public enum Action {
        /// Warn a user that a limit is near.
        case warn(user: UserID, title: String, body: String)
        /// Tell a user that an app is shielded; `extraTimeLabel` names the extra-time button, if one is offered.
        case notifyShield(user: UserID, limit: String, title: String, body: String, extraTimeLabel: String?)
        /// Run a monitor extension for a callback; in guardian mode as `user`, one of those its policy limits (an
        /// interval's callback runs once for each of them logged in), never as root.
        case runExtension(
            executable: String, callback: MonitorCallback, activity: String, event: String?, user: UserID?)
        /// Hand this batch to the store writer.
        case write(StoreWriter.Batch)
        /// A line for the journal.
        case log(Logger.Level, String, Logger.Metadata)
        /// A limit was reached at this instant (for measuring shield latency).
        case limitReached(MonotonicInstant)
        /// A monitor callback or a user's new shield, for listeners (the D-Bus signals).
        case announce(ActivityEngine.Action)
    }

    public let settings: DaemonSettings
    public internal(set) var engine = ActivityEngine(configuration: .unlimited, timeZone: .current)
    public private(set) var plan = PolicyPlan.empty
    /// Why the last policy file was refused, while the policy in force is an older one (or none).
    public private(set) var policyError: PolicyError?
    /// The last store fault, until the store writes again.
    public private(set) var storeFault: String?
    /// What is shielded for each user now.
    public private(set) var shields: [UserID: EffectiveShield] = [:] {
        didSet { shieldRevision &+= 1 }
    }
    /// What a person asked to close from a shield: terminated rather than frozen while its shield is up.
    public private(set) var closeRequested: Set<CloseRequest> = [] {
        didSet { shieldRevision &+= 1 }
    }

    /// A close asked from a shield: of one app (a client's shield action), or of every app a limit's shield covers
    /// (the policy's shield, which may name categories rather than apps).
    public enum CloseRequest: Hashable, Sendable {
        case app(AppID, of: UserID)
        case limit(SettingsStoreName, of: UserID)
    }
    /// Changes whenever what enforcement follows (shields, modes, close requests) may have changed.
    public private(set) var shieldRevision: UInt64 = 0
    /// The engine's requested wake-up, if any.
    public internal(set) var wakeUp: MonotonicInstant?

    var knownUsers: Set<UserID> = []
    var activeDowntimes: Set<DeviceActivityName> = []
    private var liveSessions: [SessionID: UserID] = [:]
    private var countedSamples: (revision: UInt64, samples: [UsageSample])?
    private var tracker = UsageTracker()
    var batch = StoreWriter.Batch()
    var dayRecords = DayRecordState()
    private var lastFlush: Duration?
    /// How much earlier than `flushInterval` after the last flush a tick still flushes.
    static let flushTolerance: Duration = .milliseconds(100)
    private var countedSinceFlush = false
    private var snapshotRequested = false
    private var lastClockOffset: Int64?
    private var lastTimeZone: String?

    /// A runtime with nothing monitored; `handle(.restarted(_:))` first.
    public init(settings: DaemonSettings) {
        self.settings = settings
    }

    /// Takes in an event; returns what to do, in order.
    public mutating func handle(_ event: Event, at now: Now) -> [Action] {
        var actions: [Action] = []
        switch event {
        case .restarted(let snapshot):
            restore(snapshot, at: now, into: &actions)
        case .policyLoaded(let newPlan):
            policyError = nil
            apply(newPlan, at: now, into: &actions)
        case .policyRefused(let error):
            policyError = error
            actions.append(
                .log(
                    .error, "policy refused, the previous one stays in force",
                    ["error": "\(error)"].merging(JournalMessage.policyRefused.metadata) { $1 }))
        case .tick(let samples, let revision):
            tick(samples, revision: revision, at: now, into: &actions)
        case .wakeUp:
            wakeUp = nil
            run(engine.handle(.wakeUp, at: now), at: now, into: &actions)
        case .answered(let answer):
            answered(answer, at: now, into: &actions)
        case .storeFault(let fault):
            storeFault = fault
        case .engine(let event):
            run(engine.handle(event, at: now), at: now, into: &actions)
        case .appsSeen(let labels):
            noteApps(labels)
        case .appNotificationsSeen(let records):
            batch.records.appNotifications += records
        }
        return actions
    }

    /// How a shielded app of `user` is kept from running: terminated soon when a close was asked from its shield,
    /// frozen under one of the user's downtimes, terminated when one of the user's limits whose shield is up says so
    /// (whether it names the app, its category or all use), else frozen.
    public func mode(
        for label: (token: ApplicationToken, category: ActivityCategoryToken), app: AppID, user: UserID
    ) -> ShieldMode {
        func covers(_ shield: ShieldSettings) -> Bool {
            EffectiveShield(union: [shield]).shields(application: label.token, category: label.category)
        }
        let limitsUp = plan.limits(of: user).filter {
            engine.settings(of: $0.store, for: user) != nil && covers($0.shield)
        }
        if closeRequested.contains(.app(app, of: user))
            || limitsUp.contains(where: { closeRequested.contains(.limit($0.store, of: user)) })
        {
            return .terminate(grace: .seconds(5))
        }
        let inDowntime = activeDowntimes.contains { activity in
            guard let downtime = plan.downtimeShields[activity] else { return false }
            return downtime.users.includes(user) && covers(downtime.shield)
        }
        if inDowntime { return .freeze }
        return limitsUp.lazy.map(\.mode).first { $0 != .freeze } ?? .freeze
    }

    /// Forgets the close requests of apps no longer shielded (`apps`) and of limits whose shield is down.
    public mutating func keepCloseRequests(for apps: Set<AppID>) {
        let kept = closeRequested.filter { request in
            switch request {
            case .app(let app, _): apps.contains(app)
            case .limit(let store, let user): engine.settings(of: store, for: user) != nil
            }
        }
        if kept != closeRequested { closeRequested = kept }
    }

    mutating func setPlan(_ newPlan: PolicyPlan) {
        plan = newPlan
        shieldRevision &+= 1
        dayRecords.limitsDay = nil
    }

    mutating func setShield(_ shield: EffectiveShield?, for user: UserID) {
        shields[user] = shield
        countedSamples = nil
    }

    mutating func requestClose(_ request: CloseRequest) { closeRequested.insert(request) }

    /// Sets a settings store of the engine. The shield's mode follows which stores are up (`mode(for:app:user:)`),
    /// so enforcement looks again even when the user's combined shield stays the same.
    mutating func storeChanged(user: UserID, store: SettingsStoreName, settings: ShieldSettings?, at now: Now)
        -> [ActivityEngine.Action]
    {
        shieldRevision &+= 1
        return engine.handle(.settingsStoreChanged(user: user, store: store, settings: settings), at: now)
    }

    /// The engine asked for its snapshot to be saved: the next tick flushes, with it.
    mutating func requestSnapshot() {
        snapshotRequested = true
        lastFlush = nil
    }

    // MARK: - Restart

    private mutating func restore(_ snapshot: EngineSnapshot?, at now: Now, into actions: inout [Action]) {
        guard let snapshot else { return }
        engine = ActivityEngine(restoring: snapshot)
        // The snapshot's shields hold from the first instant: nothing is released before the policy and the first
        // samples say so.
        shields = engine.shields
        for (user, shield) in shields { noteShield(shield, for: user, at: now) }
        knownUsers = engine.knownUsers
        wakeUp = engine.requestedWakeUp
        actions.append(.log(.info, "resumed the engine from its snapshot", ["shielded users": "\(shields.count)"]))
        // A restart within a sample's hold limit (a crash, a kill, a quick restart) keeps the sessions' last samples:
        // like a late tick, the first sample after it counts the time since, up to the limit. Anything older, or
        // from another boot, is stale.
        let holds = engine.lastEventTime.map { last in
            let monotonic = now.monotonic.nanoseconds - last.monotonic.nanoseconds
            let wall = now.wallClock.nanosecondsSince1970 - last.wallClock.nanosecondsSince1970
            return monotonic >= 0 && monotonic <= engine.configuration.sampleHoldLimit.nanoseconds
                && abs(wall - monotonic) < 1_000_000_000
        }
        if holds != true { run(engine.handle(.sessionsUnknown, at: now), at: now, into: &actions) }
    }

    // MARK: - Ticks

    private mutating func tick(_ collected: [UsageSample], revision: UInt64, at now: Now, into actions: inout [Action])
    {
        detectClockChanges(at: now, into: &actions)
        // A shielded app is frozen or stopped behind its shield: time in front of it is not use.
        let samples: [UsageSample]
        let sessionsMayHaveChanged = countedSamples?.revision != revision
        if let counted = countedSamples, !sessionsMayHaveChanged {
            samples = counted.samples
        } else {
            samples = collected.filter { settings.users.includes($0.user) }.map { sample in
                guard let shield = shields[sample.user] else { return sample }
                var unshielded = sample
                unshielded.applicationsInUse.removeAll { shield.shields($0) }
                return unshielded
            }
            countedSamples = (revision, samples)
        }
        for sample in samples where sample.presence.counts && !sample.applicationsInUse.isEmpty {
            countedSinceFlush = true
        }
        for sample in samples {
            if sessionsMayHaveChanged, knownUsers.insert(sample.user).inserted {
                if settings.users == nil { dayRecords.limitsDay = nil }
                applyActiveDowntimes(to: sample.user, at: now, into: &actions)
            }
            run(engine.handle(.sample(sample), at: now), at: now, into: &actions)
        }
        if sessionsMayHaveChanged {
            let current = Dictionary(samples.map { ($0.session, $0.user) }, uniquingKeysWith: { first, _ in first })
            for (session, user) in liveSessions where current[session] == nil {
                run(engine.handle(.sessionEnded(user, session), at: now), at: now, into: &actions)
            }
            liveSessions = current
        }
        if let wakeUp, wakeUp <= now.monotonic {
            self.wakeUp = nil
            run(engine.handle(.wakeUp, at: now), at: now, into: &actions)
        }
        let monotonic = Duration.nanoseconds(now.monotonic.nanoseconds)
        let (intervals, pickups) = tracker.observe(samples, monotonic: monotonic, wall: now.date)
        batch.intervals += intervals
        batch.pickups += pickups
        // Ticks come up to ~50 ms late (timer slack), one later than the other: a flush due "a second after the last"
        // would then skip every other tick. What is counted waits at most one interval plus the lateness.
        if lastFlush.map({ monotonic - $0 >= settings.flushInterval - Self.flushTolerance }) ?? true {
            actions.append(
                flush(at: now, withSnapshot: countedSinceFlush || snapshotRequested, toFileNow: snapshotRequested))
            countedSinceFlush = false
            snapshotRequested = false
            lastFlush = monotonic
        }
    }

    /// The batch counted since the last flush and, when use was counted or the engine asked for it, the engine's
    /// snapshot. Without either, restoring the previous snapshot resumes the same counters: nothing counted between.
    /// `toFileNow`: the snapshot also goes to the snapshot file at once (`StoreWriter.Batch.snapshotToFileNow`).
    public mutating func flush(at now: Now, withSnapshot: Bool = true, toFileNow: Bool = true) -> Action {
        noteDayRecords(at: now)
        batch.snapshotToFileNow = toFileNow
        if withSnapshot {
            do {
                batch.snapshot = EngineSnapshotRecord(
                    scope: settings.snapshotScope, version: EngineSnapshot.currentFormatVersion,
                    blob: try JSONEncoder().encode(engine.snapshot()), savedAt: now.date)
            } catch {
                return .log(.error, "could not encode the engine snapshot", ["error": "\(error)"])
            }
        }
        defer { batch = StoreWriter.Batch() }
        return .write(batch)
    }

    private mutating func detectClockChanges(at now: Now, into actions: inout [Action]) {
        let offset = now.wallClock.nanosecondsSince1970 - now.monotonic.nanoseconds
        if let last = lastClockOffset, abs(offset - last) > 2_000_000_000 {
            actions.append(.log(.notice, "wall clock changed", ["by": "\(Duration.nanoseconds(offset - last))"]))
            run(engine.handle(.wallClockChanged, at: now), at: now, into: &actions)
        }
        lastClockOffset = offset
        let zone = now.timeZone ?? TimeZone.current
        if let last = lastTimeZone, zone.identifier != last {
            run(engine.handle(.timeZoneChanged(zone), at: now), at: now, into: &actions)
        }
        lastTimeZone = zone.identifier
    }
}

extension Now {
    /// The wall-clock time as a `Date`.
    var date: Date { Date(timeIntervalSince1970: TimeInterval(wallClock.nanosecondsSince1970) / 1e9) }
}
