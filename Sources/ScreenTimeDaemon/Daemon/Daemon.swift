import Enforcement
import Foundation
import LinuxActivity
import Logging
import ScreenTimeBus
import ServiceLifecycle
import Synchronization
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// The composition of collector → engine → ledger → enforcement → notifications, one tick at a time.
///
/// Owned by the engine loop's thread. Time comes from the caller: `tick(at:)` takes the monotonic and wall time, so
/// that the whole loop can be driven by tests. `services()` are what `screentimed` runs in one service group.
public final class Daemon {
    public let settings: DaemonSettings
    public let collector: Collector
    public internal(set) var engine: ActivityEngine
    public private(set) var policy: Policy
    public private(set) var plan: PolicyPlan
    let database: UsageDatabase
    /// Writes the ledger on its own task; the tick hands it a batch every flush interval.
    public let storeWriter: StoreWriter
    private var batch = StoreWriter.Batch()
    private let enforcer: Enforcer
    private let tokenizer: Tokenizer
    private let notifier: (any DaemonNotifier)?
    var logger: Logger
    private var tracker = UsageTracker()
    private var shields: [UserID: EffectiveShield] = [:] {
        didSet {
            enforcementInputs = nil
            countedSamples = nil
        }
    }
    /// The collector's last samples with shielded apps taken out, and the collector's `snapshotRevision` they were
    /// made from.
    private var countedSamples: (revision: UInt64, samples: [UsageSample])?
    /// What the enforcer was last asked for, and the process table's `changeCount` it was derived from: rebuilt only
    /// when a process, a shield, the policy or a request to close changed.
    private var enforcementInputs:
        (tableChanges: UInt64, desired: [AppID: ShieldMode], observed: [AppID: [ObservedProcess]])?
    var knownUsers: Set<UserID> = []
    private var activeDowntimes: Set<DeviceActivityName> = []
    private var liveSessions: [SessionID: UserID] = [:]
    private var lastFlush: Duration?
    private var countedSinceFlush = false
    private var snapshotRequested = false
    private let encoder = JSONEncoder()
    private var policyStamp: FileStamp?
    private var grantsToday: [String: Int] = [:]
    private var closeRequested: Set<AppID> = [] {
        didSet { enforcementInputs = nil }
    }
    private var lastClockOffset: Int64?
    private var lastTimeZone = TimeZone.current.identifier
    /// The engine's requested wake-up, if any: the loop sleeps no longer than that.
    public private(set) var wakeUp: MonotonicInstant?
    /// How many users have a shield in force.
    public var shieldedUsers: Int { shields.count }
    /// When the last limit was reached (the instant of the engine's event), for measuring shield latency from
    /// another thread.
    public var lastLimitReached: MonotonicInstant? {
        let nanoseconds = limitReachedNanoseconds.load(ordering: .acquiring)
        return nanoseconds < 0 ? nil : MonotonicInstant(nanoseconds: nanoseconds)
    }
    private let limitReachedNanoseconds = Atomic<Int64>(-1)
    /// The D-Bus service's requests, answered on the loop's thread (`Daemon+Bus.swift`).
    public let busRequests = BusRequestQueue()
    /// What the D-Bus clients keep in the daemon: their authorization, activities and stores.
    var clients = ClientRegistry()
    /// Why the policy file was refused at the last (re)load; nil when it was accepted.
    var policyError: String?

    /// Opens everything; nothing runs until `start(at:)`. Throws when the policy, the database or the token key can't
    /// be used (the error says which and how to fix it).
    public init(settings: DaemonSettings, notifier: (any DaemonNotifier)?, logger: Logger) throws {
        self.settings = settings
        self.notifier = notifier
        self.logger = logger
        tokenizer = try Tokenizer.loadOrCreate(keyAt: settings.tokenKeyPath)
        var configuration = Collector.Configuration()
        configuration.idleTimeout = settings.idleTimeout
        configuration.focusSourceFactory = DesktopFocus.factory
        collector = Collector(configuration: configuration, tokenizer: tokenizer)
        try Self.makeDirectory(for: settings.databasePath)
        database = try UsageDatabase.open(at: settings.databasePath)
        storeWriter = StoreWriter(recorder: UsageRecorder(database: database, bootID: Self.bootID()), logger: logger)
        let freezer = try? Freezer()
        enforcer = Enforcer(stateFile: StateFile(path: .init(settings.enforcementStatePath)), freezer: freezer)
        policy = Policy.empty
        plan = PolicyPlan(policy: .empty, appToken: { _ in ApplicationToken(rawValue: "") }, categoryToken: { _ in
            ActivityCategoryToken(rawValue: "")
        })
        engine = ActivityEngine(configuration: .unlimited, timeZone: .current)
    }

    /// Restores the engine from the last snapshot (or starts fresh), releases what a crashed run left frozen,
    /// loads the policy and starts monitoring it.
    public func start(at now: Now) throws {
        if let record = try database.snapshot(scope: settings.snapshotScope),
            let snapshot = try? JSONDecoder().decode(EngineSnapshot.self, from: record.blob)
        {
            engine = ActivityEngine(restoring: snapshot)
            logger.info("resumed the engine from its snapshot", metadata: ["saved": "\(record.savedAt)"])
            run(engine.handle(.sessionsUnknown, at: now), at: now)
        }
        do {
            try enforcer.adoptStateFile()
        } catch {
            logger.error("cannot read the enforcement state file; nothing adopted", metadata: ["error": "\(error)"])
        }
        policyStamp = FileStamp(path: settings.policyPath)
        switch Result(catching: { () throws(PolicyError) in try Policy.load(from: settings.policyPath) }) {
        case .success(let loaded): apply(loaded, at: now)
        case .failure(let error):
            logger.error("policy refused; no limits in force", metadata: ["error": "\(error)"])
            policyError = "\(error)"
            apply(.empty, at: now)
        }
        restoreClients(at: now)
    }

    /// Re-reads the policy file; an invalid file is refused and the policy in force stays. Returns the error, if any.
    @discardableResult
    public func reload(at now: Now) -> PolicyError? {
        policyStamp = FileStamp(path: settings.policyPath)
        do {
            let loaded = try Policy.load(from: settings.policyPath)
            apply(loaded, at: now)
            policyError = nil
            logger.info("policy reloaded", metadata: ["limits": "\(loaded.limits.count)", "downtimes": "\(loaded.downtimes.count)"])
            return nil
        } catch {
            logger.error("policy refused, the previous one stays in force", metadata: ["error": "\(error)"])
            policyError = "\(error)"
            return error
        }
    }

    /// Reloads the policy if its file changed since it was last read (edited or replaced; while it is missing, the
    /// policy in force stays); the engine loop calls it when the file's directory reports a change. Returns whether
    /// it read the file.
    @discardableResult
    public func reloadIfPolicyChanged(at now: Now) -> Bool {
        guard let stamp = FileStamp(path: settings.policyPath), stamp != policyStamp else { return false }
        reload(at: now)
        return true
    }

    /// One tick: sample, count, decide, record, enforce. Returns the instant the loop should wake at the latest.
    public func tick(at now: Now) {
        detectClockChanges(at: now)
        let monotonic = Duration.nanoseconds(now.monotonic.nanoseconds)
        let snapshot = collector.tick(now: monotonic, wallNow: now.wallClock.secondsSince1970)
        // A shielded app is frozen or stopped behind its shield: time in front of it is not use.
        let samples: [UsageSample]
        let sessionsMayHaveChanged = countedSamples?.revision != collector.snapshotRevision
        if let counted = countedSamples, !sessionsMayHaveChanged {
            samples = counted.samples
        } else {
            samples = snapshot.samples.filter { settings.users?.contains($0.user) ?? true }.map { sample in
                guard let shield = shields[sample.user] else { return sample }
                var unshielded = sample
                unshielded.applicationsInUse.removeAll { shield.shields($0) }
                return unshielded
            }
            countedSamples = (collector.snapshotRevision, samples)
        }
        for sample in samples where sample.presence.counts && !sample.applicationsInUse.isEmpty {
            countedSinceFlush = true
        }
        for sample in samples {
            if sessionsMayHaveChanged, knownUsers.insert(sample.user).inserted {
                applyActiveDowntimes(to: sample.user, at: now)
            }
            run(engine.handle(.sample(sample), at: now), at: now)
        }
        if sessionsMayHaveChanged {
            let current = Dictionary(samples.map { ($0.session, $0.user) }, uniquingKeysWith: { first, _ in first })
            for (session, user) in liveSessions where current[session] == nil {
                run(engine.handle(.sessionEnded(user, session), at: now), at: now)
            }
            liveSessions = current
        }
        if let wakeUp, wakeUp <= now.monotonic {
            self.wakeUp = nil
            run(engine.handle(.wakeUp, at: now), at: now)
        }
        for answer in notifier?.takeAnswers() ?? [] { answered(answer, at: now) }

        let wall = Date(timeIntervalSince1970: TimeInterval(now.wallClock.nanosecondsSince1970) / 1e9)
        let (intervals, pickups) = tracker.observe(samples, monotonic: monotonic, wall: wall)
        batch.intervals += intervals
        batch.pickups += pickups
        if lastFlush.map({ monotonic - $0 >= settings.flushInterval }) ?? true {
            flush(at: wall, withSnapshot: countedSinceFlush || snapshotRequested)
            countedSinceFlush = false
            snapshotRequested = false
            lastFlush = monotonic
        }
        enforce(at: now)
    }

    /// Handles a wake-up the engine asked for, between ticks.
    public func wake(at now: Now) {
        wakeUp = nil
        run(engine.handle(.wakeUp, at: now), at: now)
        enforce(at: now)
    }

    /// The end of the loop: hands the last batch and the engine's snapshot to the store writer. The enforcer's
    /// service releases every shield next (individual mode never leaves an app frozen), then the writer writes.
    public func stop(at now: Now) {
        let wall = Date(timeIntervalSince1970: TimeInterval(now.wallClock.nanosecondsSince1970) / 1e9)
        flush(at: wall)
        storeWriter.finish()
    }

    /// The daemon's services, in the order of a `ServiceGroup`: started together, stopped in reverse order, so the
    /// loop stops sampling first, then the collector's sources close, the enforcer releases what it holds, the
    /// notifier stops, and the store writer writes the last batch.
    public func services(logger: Logger, systemd: SystemdNotifier = SystemdNotifier()) -> [any Service] {
        var services: [any Service] = [storeWriter]
        if let notifier = notifier as? any Service { services.append(notifier) }
        services += [
            EnforcerService(enforcer: enforcer, logger: logger), CollectorService(collector: collector),
            EngineLoop(daemon: self, logger: logger, systemd: systemd),
        ]
        // Last, so it stops first: no request arrives for a loop that has ended.
        if let endpoint = settings.busEndpoint {
            services.append(ScreenTimeBusServer(endpoint: endpoint, requests: busRequests, logger: logger))
        }
        return services
    }

    // MARK: - Policy

    private func apply(_ newPolicy: Policy, at now: Now) {
        let newPlan = PolicyPlan(
            policy: newPolicy, appToken: { self.tokenizer.token(for: $0) }, categoryToken: { self.tokenizer.token(for: $0) })
        let wanted = Dictionary(uniqueKeysWithValues: newPlan.registrations.map { ($0.name, $0) })
        let stale = engine.activities.filter { name in
            let text = name.rawValue
            guard text.hasPrefix("limit.") || text.hasPrefix("downtime.") else {
                // Extra time outlives reloads unless its limit is gone.
                return text.hasPrefix("extra.") && newPlan.limit(for: name) == nil
            }
            return wanted[name] == nil
        }
        policy = newPolicy
        plan = newPlan
        enforcementInputs = nil
        if !stale.isEmpty { run(engine.handle(.stopMonitoring(stale), at: now), at: now) }
        for registration in newPlan.registrations where engine.registration(of: registration.name) != registration {
            run(engine.handle(.startMonitoring(registration), at: now), at: now)
        }
        // Stores of limits and downtimes that no longer exist are cleared for everyone.
        for user in knownUsers {
            for name in stale { clearStore(for: name, user: user, at: now) }
        }
        for (activity, downtime) in plan.downtimeShields where activeDowntimes.contains(activity) {
            for user in knownUsers {
                run(engine.handle(.settingsStoreChanged(user: user, store: downtime.store, settings: downtime.shield), at: now), at: now)
            }
        }
    }

    private func clearStore(for activity: DeviceActivityName, user: UserID, at now: Now) {
        let store = SettingsStoreName(activity.rawValue)
        run(engine.handle(.settingsStoreChanged(user: user, store: store, settings: nil), at: now), at: now)
    }

    private func applyActiveDowntimes(to user: UserID, at now: Now) {
        for activity in activeDowntimes {
            guard let downtime = plan.downtimeShields[activity] else { continue }
            run(engine.handle(.settingsStoreChanged(user: user, store: downtime.store, settings: downtime.shield), at: now), at: now)
        }
    }

    // MARK: - Engine actions

    func run(_ actions: [ActivityEngine.Action], at now: Now) {
        guard !actions.isEmpty else { return }
        var queue = actions[...]
        while let action = queue.popFirst() {
            logger.debug("engine", metadata: ["action": "\(action)"])
            runExtension(for: action)
            publishToBus(action)
            switch action {
            case .intervalDidStart(let activity):
                if let downtime = plan.downtimeShields[activity] {
                    activeDowntimes.insert(activity)
                    for user in knownUsers {
                        queue += engine.handle(.settingsStoreChanged(user: user, store: downtime.store, settings: downtime.shield), at: now)
                    }
                    logger.notice("downtime started", metadata: ["activity": "\(activity)"])
                } else if let limit = plan.limit(for: activity), activity == limit.activity {
                    grantsToday = grantsToday.filter { !$0.key.hasPrefix(limit.name + "/") }
                    for user in knownUsers {
                        queue += engine.handle(.settingsStoreChanged(user: user, store: limit.store, settings: nil), at: now)
                    }
                }
            case .intervalDidEnd(let activity):
                if let downtime = plan.downtimeShields[activity] {
                    activeDowntimes.remove(activity)
                    for user in knownUsers {
                        queue += engine.handle(.settingsStoreChanged(user: user, store: downtime.store, settings: nil), at: now)
                    }
                    logger.notice("downtime ended", metadata: ["activity": "\(activity)"])
                } else if let limit = plan.limit(for: activity), activity == limit.activity {
                    for user in knownUsers {
                        queue += engine.handle(.settingsStoreChanged(user: user, store: limit.store, settings: nil), at: now)
                    }
                }
            case .intervalWillStartWarning, .intervalWillEndWarning:
                break
            case .eventWillReachThresholdWarning(_, let activity, let user):
                guard let limit = plan.limit(for: activity) else { break }
                let left = limit.warning.map(Self.describe) ?? "a little time"
                logger.notice("limit warning", metadata: ["limit": "\(limit.name)", "user": "\(user)"])
                notifier?.warn(user: user, title: "\(left) left for \(limit.name)", body: "Screen Time: your \(limit.name) limit is almost reached.")
            case .eventDidReachThreshold(_, let activity, let user):
                guard let limit = plan.limit(for: activity) else { break }
                logger.notice("limit reached, shielding", metadata: ["limit": "\(limit.name)", "user": "\(user)"])
                limitReachedNanoseconds.store(now.monotonic.nanoseconds, ordering: .releasing)
                queue += engine.handle(.settingsStoreChanged(user: user, store: limit.store, settings: limit.shield), at: now)
                let extra = plan.shieldText.extraTime.flatMap { extra -> String? in
                    (grantsToday["\(limit.name)/\(user.rawValue)"] ?? 0) < plan.shieldText.extraTimesPerDay
                        ? "\(Self.describe(extra)) more" : nil
                }
                notifier?.shield(
                    user: user, limit: limit.name, title: "Time limit reached: \(limit.name)",
                    body: plan.shieldText.message ?? "You have used your \(Self.describe(limit.daily)) of \(limit.name) today.",
                    extraTimeLabel: extra)
            case .shieldChanged(let user, let shield):
                shields[user] = shield.isEmpty ? nil : shield
            case .scheduleWakeUp(let instant):
                wakeUp = instant
            case .cancelWakeUp:
                wakeUp = nil
            case .monitoringRefused(let activity, let error):
                logger.error("the engine refused an activity", metadata: ["activity": "\(activity)", "error": "\(error)"])
            case .persistSnapshot:
                snapshotRequested = true
                lastFlush = nil
            }
        }
    }

    /// Runs the activity's monitor extension, if it names one, for a callback; it runs on its own, under its time and
    /// memory limits, its output going to the log.
    private func runExtension(for action: ActivityEngine.Action) {
        let call: (MonitorCallback, DeviceActivityName, ActivityEventName?)
        switch action {
        case .intervalDidStart(let activity): call = (.intervalDidStart, activity, nil)
        case .intervalDidEnd(let activity): call = (.intervalDidEnd, activity, nil)
        case .intervalWillStartWarning(let activity): call = (.intervalWillStartWarning, activity, nil)
        case .intervalWillEndWarning(let activity): call = (.intervalWillEndWarning, activity, nil)
        case .eventWillReachThresholdWarning(let event, let activity, _): call = (.eventWillReachThresholdWarning, activity, event)
        case .eventDidReachThreshold(let event, let activity, _): call = (.eventDidReachThreshold, activity, event)
        default: return
        }
        guard let executable = plan.extensions[call.1] else { return }
        let runner = ExtensionRunner(logger: logger)
        let logger = logger
        Task.detached {
            let outcome = await runner.run(
                executable: executable, callback: call.0, activity: call.1.rawValue, event: call.2?.rawValue)
            if !outcome.succeeded {
                logger.warning("monitor extension failed", metadata: ["extension": "\(executable)", "outcome": "\(outcome)"])
            }
        }
    }

    private func answered(_ answer: NotificationAnswer, at now: Now) {
        guard let limit = plan.limits.first(where: { $0.name == answer.limit }) else { return }
        switch answer.choice {
        case .close:
            for id in policy.limits.first(where: { $0.name == limit.name })?.applications ?? [] { closeRequested.insert(id) }
            logger.notice("close requested from the shield", metadata: ["limit": "\(limit.name)"])
        case .extraTime:
            let key = "\(limit.name)/\(answer.user.rawValue)"
            let granted = grantsToday[key] ?? 0
            guard let extra = plan.shieldText.extraTime, granted < plan.shieldText.extraTimesPerDay else {
                logger.notice("extra time refused: none left today", metadata: ["limit": "\(limit.name)"])
                return
            }
            grantsToday[key] = granted + 1
            let local = Calendar.current.dateComponents(
                in: TimeZone.current, from: Date(timeIntervalSince1970: TimeInterval(now.wallClock.secondsSince1970)))
            let registration = PolicyPlan.extraTime(
                extra, after: limit, for: answer.user, number: granted + 1,
                startingAt: (local.hour ?? 0, local.minute ?? 0, local.second ?? 0))
            run(engine.handle(.startMonitoring(registration), at: now), at: now)
            run(engine.handle(.settingsStoreChanged(user: answer.user, store: limit.store, settings: nil), at: now), at: now)
            do {
                _ = try database.recordGrant(
                    ExtraTimeGrant(
                        user: answer.user, target: limit.name, seconds: extra.components.seconds,
                        grantedAt: Date(timeIntervalSince1970: TimeInterval(now.wallClock.secondsSince1970)),
                        reason: "asked from the shield"))
            } catch {
                logger.error("could not record extra time", metadata: ["error": "\(error)"])
            }
            logger.notice("extra time granted", metadata: ["limit": "\(limit.name)", "extra": "\(extra)"])
        }
    }

    // MARK: - Ledger

    /// Hands the store writer the rows counted since the last flush and, when use was counted or the engine asked
    /// for it, the engine's snapshot, to be written in one transaction. Without either, restoring the previous
    /// snapshot resumes the same counters: nothing counted in between.
    private func flush(at wall: Date, withSnapshot: Bool = true) {
        if withSnapshot {
            do {
                batch.snapshot = EngineSnapshotRecord(
                    scope: settings.snapshotScope, version: EngineSnapshot.currentFormatVersion,
                    blob: try encoder.encode(engine.snapshot()), savedAt: wall)
            } catch {
                logger.error("could not encode the engine snapshot", metadata: ["error": "\(error)"])
            }
        }
        storeWriter.submit(batch)
        batch = StoreWriter.Batch()
    }

    // MARK: - Enforcement

    private func enforce(at now: Now) {
        guard !shields.isEmpty || !enforcer.isIdle else { return }
        let table = collector.table
        if enforcementInputs?.tableChanges != table.changeCount {
            var desired: [AppID: ShieldMode] = [:]
            var observed: [AppID: [ObservedProcess]] = [:]
            for (user, shield) in shields {
                let catalog = collector.catalog(for: user)
                for pid in table.processIDsByUser[user] ?? [] {
                    guard let entry = table.entries[pid], let app = entry.app else { continue }
                    let label = catalog.label(for: app.id)
                    guard shield.shields(application: label.token, category: label.categoryToken) else { continue }
                    desired[app.id] =
                        closeRequested.contains(app.id) ? .terminate(grace: .seconds(5)) : plan.mode(for: label.token)
                    let cgroup = entry.controlGroup.map { CgroupPath($0.path) }.flatMap { $0.isAppOwnCgroup ? $0 : nil }
                    observed[app.id, default: []].append(ObservedProcess(entry.identity, ownCgroup: cgroup))
                }
            }
            if closeRequested.contains(where: { desired[$0] == nil }) {
                closeRequested = closeRequested.filter { desired[$0] != nil }
            }
            enforcementInputs = (table.changeCount, desired, observed)
        }
        guard let (_, desired, observed) = enforcementInputs else { return }
        let instant = ContinuousClock.now
        let report = enforcer.apply(desired: desired, observed: observed, at: instant)
        for failure in report.failures {
            logger.error("enforcement failed; retrying next tick", metadata: ["action": "\(failure.action)", "error": "\(failure.error)"])
        }
        if let error = report.stateFileError {
            logger.error("could not write the enforcement state file", metadata: ["error": "\(error)"])
        }
        for entry in report.entries where entry.result == .done {
            logger.debug("enforced", metadata: ["action": "\(entry.action)"])
        }
    }

    // MARK: - Clocks

    private func detectClockChanges(at now: Now) {
        let offset = now.wallClock.nanosecondsSince1970 - now.monotonic.nanoseconds
        if let last = lastClockOffset, abs(offset - last) > 2_000_000_000 {
            logger.notice("wall clock changed", metadata: ["by": "\(Duration.nanoseconds(offset - last))"])
            run(engine.handle(.wallClockChanged, at: now), at: now)
        }
        lastClockOffset = offset
        let zone = now.timeZone ?? TimeZone.current
        if zone.identifier != lastTimeZone {
            lastTimeZone = zone.identifier
            run(engine.handle(.timeZoneChanged(zone), at: now), at: now)
        }
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return seconds >= 3600 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 60) min" }
        return "\(seconds) s"
    }

    static func bootID() -> String {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
    }

    static func makeDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
}

/// A file's identity and modification time, to notice edits without reading it.
struct FileStamp: Equatable {
    var inode: UInt64
    var modified: Int64
    var size: Int64

    init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 || stat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        size = Int64(status.st_size)
    }
}
