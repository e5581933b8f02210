import Enforcement
import Foundation
import LinuxActivity
import Logging
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import ServiceLifecycle
import Synchronization
import UsageStore

/// The daemon's I/O around its pure runtime: the collector's samples go in, the runtime's actions come out and are
/// carried out (notifications, the store, extensions, the journal), and the enforcer makes processes match the
/// runtime's shields.
///
/// Owned by the engine loop's thread. Time comes from the caller: `tick(at:)` takes the monotonic and wall time, so
/// that the whole loop can be driven by tests. `services()` are what `screentimed` runs in one service group.
public final class Daemon {
    public let settings: DaemonSettings
    public let collector: Collector
    /// The decisions: engine, policy, shields.
    public internal(set) var runtime: DaemonRuntime
    /// Writes the ledger and the snapshot file on its own task; the tick hands it a batch every flush interval.
    public let storeWriter: StoreWriter
    let enforcer: Enforcer
    /// The D-Bus service's requests, answered on the loop's thread (`Daemon+Bus.swift`).
    public let busRequests: BusRequestQueue
    /// What the D-Bus clients keep in the daemon: their authorization, activities and stores.
    var clients = ClientRegistry()
    /// Whether the clients' records were read back from the ledger (it opens after the start).
    var clientsRestored = false
    /// The tokens of the client extensions running now (`Daemon+ClientExtensions.swift`).
    let extensionTokens = ExtensionTokens()
    /// The monitor extensions' runs, one at a time for each extension (a client's, or the policy's by its executable).
    let clientMonitorRuns = SerialRuns<BusClient>()
    private let monitorRuns = SerialRuns<String>()
    /// Client shields whose text an extension has given, to show at the next tick.
    let clientShieldTexts = HandOff<(UserID, ShieldText)>()
    /// The shield-action extensions' answers, applied at the next tick.
    let clientShieldResponses = HandOff<ClientShieldResponse>()
    /// Notifications apps sent, as the notification watch saw them, recorded at the next tick.
    let appNotificationSightings = HandOff<NotificationWatch.Sighting>()
    private let tokenizer: Tokenizer
    let notifier: (any DaemonNotifier)?
    let logger: Logger
    /// Held for the daemon's life: one daemon per state folder, and `screentime stop --release` waits for it.
    private let instanceLock: InstanceLock
    /// What the enforcer was last asked for, and the process table's `changeCount` and the runtime's
    /// `shieldRevision` it was derived from.
    var enforcementInputs:
        (
            tableChanges: UInt64, shieldRevision: UInt64, desired: [AppID: ShieldMode],
            observed: [AppID: [ObservedProcess]]
        )?
    /// Guardian mode: the requests for more time, until the guardian answers them (`Daemon+Requests.swift`).
    var requests: TimeRequests
    /// The policy files and the last good policy of each.
    private var policySources: PolicySources
    /// The process table's `inheritedRevision` last written down (nil: the write failed), and when
    /// (`InheritedAppsFile`).
    var inheritedAppsKept: (revision: UInt64?, at: MonotonicInstant)?
    /// The collector's revision whose apps were last labelled in the store (`Daemon+DayRecords.swift`).
    var labelledRevision: UInt64?
    /// When the last limit was reached (the instant of the engine's event), for measuring shield latency from
    /// another thread.
    public var lastLimitReached: MonotonicInstant? {
        let nanoseconds = limitReachedNanoseconds.load(ordering: .acquiring)
        return nanoseconds < 0 ? nil : MonotonicInstant(nanoseconds: nanoseconds)
    }
    private let limitReachedNanoseconds = Atomic<Int64>(-1)

    /// The engine, as the runtime holds it.
    public var engine: ActivityEngine { runtime.engine }
    /// What the engine loop watches for policy changes.
    var policyWatchPaths: [String] { policySources.watchedPaths }
    /// The policy in force, as activities and stores.
    public var plan: PolicyPlan { runtime.plan }
    /// The engine's requested wake-up, if any: the loop sleeps no longer than that.
    public var wakeUp: MonotonicInstant? { runtime.wakeUp }
    /// How many users have a shield in force.
    public var shieldedUsers: Int { runtime.shields.count }
    /// Whether shielded processes are held by `SIGSTOP` alone: the loop then rechecks them every 100 ms.
    public var holdsStoppedProcesses: Bool { enforcer.holdsStoppedProcesses }

    /// Opens what the daemon needs to start; nothing runs until `start(at:)`. The usage store is not opened here (the
    /// store writer does, and a damaged or unwritable store never stops the daemon).
    ///
    /// - Throws: `DaemonStartError` when the token key can't be used or another daemon already runs for the same
    ///   state folder (the message says which and how to fix it).
    public init(settings: DaemonSettings, notifier: (any DaemonNotifier)?, logger: Logger) throws {
        self.settings = settings
        let busRequests = BusRequestQueue()
        self.busRequests = busRequests
        // In guardian mode the users' agents show what the daemon broadcasts.
        self.notifier = notifier ?? (settings.system ? BusNotifier(queue: busRequests) : nil)
        self.logger = logger
        instanceLock = try InstanceLock(path: settings.lockPath)
        tokenizer = try Tokenizer.loadOrCreate(keyAt: settings.tokenKeyPath)
        var configuration = Collector.Configuration()
        configuration.idleTimeout = settings.idleTimeout
        configuration.focusSourceFactory = DesktopFocus.factory(
            limitedByGuardian: settings.system, idleTimeout: settings.idleTimeout)
        configuration.limitedByGuardian = settings.system
        collector = Collector(configuration: configuration, tokenizer: tokenizer)
        storeWriter = StoreWriter(
            databasePath: settings.databasePath, snapshotFile: SnapshotFile(path: settings.snapshotPath),
            bootID: BootID.current ?? "unknown", logger: logger, firstOpenAttempted: { busRequests.wakeLoop() })
        let freezer = try? Freezer()
        enforcer = Enforcer(
            stateFile: StateFile(path: .init(settings.enforcementStatePath)), freezer: freezer,
            confiner: ServiceManagerConfiner(system: settings.system, logger: logger))
        runtime = DaemonRuntime(settings: settings)
        policySources = PolicySources(settings: settings)
        requests = TimeRequests(path: settings.requestsPath)
    }

    /// Restores the engine's snapshot and with it every shield in force, takes over what the last run held (nothing
    /// is released before the first tick decides it is no longer shielded), then loads the policy.
    public func start(at now: Now) {
        if let problem = requests.loadProblem {
            logger.error(
                "cannot read the requests for more time: none are waiting", metadata: ["problem": "\(problem)"])
        }
        let restored = SnapshotFile(path: settings.snapshotPath).load(
            orFromDatabaseAt: settings.databasePath, scope: settings.snapshotScope)
        if let restored { logger.info("restoring the engine's snapshot", metadata: ["from": "\(restored.source)"]) }
        perform(runtime.handle(.restarted(restored?.0), at: now))
        // Processes whose app came from a parent gone since are that app again (see `Collector.recall`).
        var recalled = InheritedAppsFile(path: settings.inheritedAppsPath).load()
        do {
            let held = try enforcer.adoptStateFile()
            for app in held.apps { for process in app.stopped { recalled[process] = RecalledApp(app: app.app) } }
        } catch {
            // Kept for whoever has to thaw by hand what it names; the next save starts a new one.
            let aside = settings.enforcementStatePath + ".broken-\(Int(now.date.timeIntervalSince1970))"
            let kept = rename(settings.enforcementStatePath, aside) == 0
            logger.error(
                "cannot read the enforcement state file; nothing adopted",
                metadata: ["error": "\(error)", "kept as": "\(kept ? aside : "(not moved)")"])
        }
        collector.recall(recalled)
        reload(at: now)
    }

    /// Re-reads the policy files; an invalid file is refused and its last good policy stays in force. Returns the
    /// error, if any.
    @discardableResult
    public func reload(at now: Now) -> PolicyError? {
        let reading = policySources.read(at: now.monotonic)
        for path in reading.missing {
            logger.notice(
                "a policy file is missing: its limits stay in force unless it is still missing in a few seconds",
                metadata: ["path": "\(path)", "grace": "\(PolicySources.removalGrace)"])
        }
        for path in reading.removed {
            logger.notice("a policy file was removed: its limits are lifted", metadata: ["path": "\(path)"])
        }
        for copy in reading.restoredCopies {
            logger.notice(
                "a policy file is refused: its last good text, saved earlier, is in force",
                metadata: ["copy": "\(copy)"])
        }
        for error in reading.saveErrors {
            logger.warning("cannot keep a copy of the policy accepted", metadata: ["error": "\(error)"])
        }
        if let scopes = reading.scopes {
            let plan = PolicyPlan(
                scopes: scopes, appToken: { self.tokenizer.token(for: $0) },
                categoryToken: { self.tokenizer.token(for: $0) })
            perform(runtime.handle(.policyLoaded(plan), at: now))
            // A guardian's limited apps are known by their programs' content, not only by names the user controls.
            if settings.system { collector.knowProgramsByContent(of: reading.limitedApps) }
        }
        if let error = reading.error { perform(runtime.handle(.policyRefused(error), at: now)) }
        return reading.error
    }

    /// Reloads the policies if a file changed since they were last read (edited, replaced, added or removed), or a
    /// missing file's grace is over; the engine loop calls it when a watched folder reports a change, and each tick.
    /// Returns whether it read them.
    @discardableResult
    public func reloadIfPolicyChanged(at now: Now) -> Bool {
        guard policyRemovalDue(at: now) || policySources.changed() else { return false }
        reload(at: now)
        return true
    }

    /// Whether a missing policy file's grace is over: a reload lifts its policy.
    public func policyRemovalDue(at now: Now) -> Bool { policySources.removalDue(at: now.monotonic) }

    /// One tick: sample, count, decide, record, enforce.
    public func tick(at now: Now) {
        let snapshot = collector.tick(
            now: .nanoseconds(now.monotonic.nanoseconds), wallNow: now.wallClock.secondsSince1970)
        // A user the password database doesn't list (a directory's) is covered before their first sample counts.
        if policySources.noteUsers(snapshot.samples.lazy.map(\.user), at: now.monotonic) { reload(at: now) }
        perform(runtime.handle(.tick(snapshot.samples, revision: collector.snapshotRevision), at: now))
        noteApps(in: snapshot, at: now)
        keepInheritedApps(at: now)
        if !clientsRestored { restoreClients(at: now) }
        showReadyClientShields()
        for answer in notifier?.takeAnswers() ?? [] {
            if case .clientStore(let client, let store, let application) = answer.subject {
                answerClientShield(answer.action, of: client, store: store, over: application)
            } else {
                perform(runtime.handle(.answered(answer), at: now))
            }
        }
        applyClientShieldResponses()
        recordAppNotifications(at: now)
        let health = storeWriter.health
        if health.fault != runtime.storeFault { perform(runtime.handle(.storeFault(health.fault), at: now)) }
        enforce(at: now)
        publishBusState()
    }

    /// Handles a wake-up the engine asked for, between ticks.
    public func wake(at now: Now) {
        perform(runtime.handle(.wakeUp, at: now))
        enforce(at: now)
    }

    /// The end of the loop: hands the last batch and the engine's snapshot to the store writer. What is shielded
    /// stays shielded: only `screentime stop --release` releases it.
    public func stop(at now: Now) {
        perform([runtime.flush(at: now)])
        storeWriter.finish()
        instanceLock.release()
    }

    /// The daemon's services, in the order of a `ServiceGroup`: started together, stopped in reverse order, so the
    /// loop stops sampling first, then the collector's sources close, the notifier stops, and the store writer
    /// writes the last batch.
    public func services(logger: Logger, systemd: SystemdNotifier = SystemdNotifier()) -> [any Service] {
        var services: [any Service] = [storeWriter]
        if let notifier = notifier as? any Service {
            services.append(notifier)
            // Where the daemon notifies its user's desktop, it also counts the notifications apps send there.
            if let watch = try? NotificationWatch(
                user: UserID(getuid()), sightings: appNotificationSightings, logger: logger)
            {
                services.append(watch)
            }
        }
        services += [
            CollectorService(collector: collector), EngineLoop(daemon: self, logger: logger, systemd: systemd),
        ]
        // Last, so it stops first: no request arrives for a loop that has ended.
        if let endpoint = settings.busEndpoint {
            services.append(
                ScreenTimeBusServer(
                    endpoint: endpoint, requests: busRequests, targetsSignals: settings.system, logger: logger))
        }
        return services
    }

    // MARK: - Actions

    func perform(_ actions: [DaemonRuntime.Action]) {
        for action in actions {
            switch action {
            case .warn(let user, let title, let body):
                notifier?.warn(user: user, title: title, body: body)
            case .notifyShield(let user, let limit, let title, let body, let extraTimeLabel):
                notifier?.shield(
                    user: user, subject: .limit(limit), title: title, body: body, primaryLabel: nil,
                    secondaryLabel: extraTimeLabel)
            case .runExtension(let executable, let callback, let activity, let event, let user):
                runExtension(executable, callback: callback, activity: activity, event: event, as: user)
            case .write(let batch):
                storeWriter.submit(batch)
            case .log(let level, let message, let metadata):
                logger.log(level: level, "\(message)", metadata: metadata)
            case .limitReached(let instant):
                limitReachedNanoseconds.store(instant.nanoseconds, ordering: .releasing)
            case .announce(let engineAction):
                publishToBus(engineAction)
                runClientMonitor(for: engineAction)
                forgetFinishedClientActivity(engineAction)
            }
        }
    }

    /// Runs a monitor extension on its own, under its time and memory limits, its output going to the log; in
    /// guardian mode as `user`, in a transient service of the system manager (`TransientExtensionUnit`), never as
    /// root.
    private func runExtension(
        _ executable: String, callback: MonitorCallback, activity: String, event: String?, as user: UserID?
    ) {
        let logger = logger
        let limits = settings.extensionLimits
        if settings.system {
            guard let user, user.rawValue != 0 else {
                logger.warning(
                    "monitor extension not run: guardian mode runs extensions only as a limited user",
                    metadata: ["extension": "\(executable)"])
                return
            }
            Task.detached {
                do {
                    let unit = try TransientExtensionUnit.start(
                        executable: executable, callback: callback, activity: activity, event: event, user: user,
                        limits: limits)
                    logger.info(
                        "monitor extension started",
                        metadata: ["extension": "\(executable)", "unit": "\(unit)", "uid": "\(user.rawValue)"])
                } catch {
                    logger.warning(
                        "monitor extension failed to start",
                        metadata: ["extension": "\(executable)", "error": "\(error)"])
                }
            }
            return
        }
        let runner = ExtensionRunner(limits: limits, logger: logger)
        monitorRuns.run(executable) {
            let outcome = await runner.run(executable: executable, callback: callback, activity: activity, event: event)
            if !outcome.succeeded {
                logger.warning(
                    "monitor extension failed", metadata: ["extension": "\(executable)", "outcome": "\(outcome)"])
            }
        }
    }
}

/// A file's identity and modification time, to notice edits without reading it.
struct FileStamp: Equatable {
    var inode: UInt64
    var modified: Int64
    /// The status change time: a new owner or mode counts (a guardian's policy is trusted by both).
    var changed: Int64
    var size: Int64

    /// The stamp of the file `path` names, after symbolic links (of the link itself when it leads nowhere).
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 || lstat(path, &status) == 0 else { return nil }
        inode = UInt64(status.st_ino)
        modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
        size = Int64(status.st_size)
    }
}
