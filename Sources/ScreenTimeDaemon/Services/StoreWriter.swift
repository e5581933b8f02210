import Enforcement
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage
import UsageStore

/// The usage store's one writer, as a service: the engine loop hands it what was counted (and, when use was counted,
/// the engine's snapshot) every flush interval, and it writes each batch on its own task, so that a slow disk
/// (`fdatasync`) never delays a tick or a shield.
///
/// The store never stops the daemon: the ledger is opened here, not at start-up; a damaged file is moved aside and a
/// fresh one started; while the ledger can't be opened or written (a read-only or full disk, a lock held elsewhere)
/// batches stay pending in memory and the writes are retried. The engine's snapshot also goes to a small file beside
/// the ledger (replaced atomically), so a lost ledger doesn't lose the day's use or its shields.
///
/// It writes until the loop has handed over its last batch (`finish()`), then ends at its turn in the graceful
/// shutdown: it is the group's first service, so the last to stop.
public final class StoreWriter: Service, Sendable {
    /// What one flush writes.
    public struct Batch: Sendable {
        public var intervals: [UsageInterval] = []
        public var pickups: [Pickup] = []
        public var grants: [ExtraTimeGrant] = []
        /// Labels, notifications, shields and limits, for reports.
        public var records = DayRecords()
        public var snapshot: EngineSnapshotRecord?
        /// Whether the snapshot also goes to the snapshot file now: when the engine asked for it to be saved (a shield
        /// or an activity changed) and at the last flush. A snapshot that only counted more use goes to the file at
        /// most once a minute while the ledger (which holds it too) is written: not an `fsync` a second.
        public var snapshotToFileNow = true

        public var isEmpty: Bool {
            intervals.isEmpty && pickups.isEmpty && grants.isEmpty && records.isEmpty && snapshot == nil
        }
    }

    /// How the store is doing, for `status`.
    public struct Health: Sendable, Equatable {
        /// Whether the ledger is open.
        public var isOpen = false
        /// Whether the first attempt to open the ledger has ended, opened or not.
        public var openAttempted = false
        /// The last failure to open or write, until a write succeeds.
        public var fault: String?
        /// Rows waiting to be written.
        public var pending = 0
        /// Damaged ledgers moved aside (kept), oldest first.
        public var movedAside: [String] = []
    }

    /// Held while the ledger is opened or written (which can wait on the disk, or on another writer for seconds).
    private struct State {
        var recorder: UsageRecorder
        var nextOpenAttempt: ContinuousClock.Instant?
        var health = Health()
        /// The local day whose earlier days were last rolled up (nil: not yet since the ledger opened).
        var rolledUpBefore: Date?
        /// When the snapshot file was last replaced.
        var snapshotFileSaved: ContinuousClock.Instant?
    }

    /// How old the snapshot file may grow behind the ledger's copy while the ledger is written.
    static let snapshotFileInterval: Duration = .seconds(60)

    private let databasePath: String
    private let snapshotFile: SnapshotFile
    private let state: Mutex<State>
    /// What the loop reads each tick (`health`, `withDatabase`), under a lock of its own held for a copy only: a tick
    /// never waits for the disk.
    private let published = Mutex<(health: Health, database: UsageDatabase?)>((Health(), nil))
    private let batches: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let logger: Logger
    private let firstOpenAttempted: @Sendable () -> Void
    /// How long to wait before trying again to open a ledger that could not be opened.
    static let reopenInterval: Duration = .seconds(5)

    /// A writer for the ledger at `databasePath` and the snapshot file `snapshotFile`; nothing is opened yet.
    /// `firstOpenAttempted` runs once the first attempt to open the ledger has ended (`health.openAttempted`).
    public init(
        databasePath: String, snapshotFile: SnapshotFile, bootID: String, logger: Logger,
        firstOpenAttempted: @escaping @Sendable () -> Void = {}
    ) {
        self.databasePath = databasePath
        self.snapshotFile = snapshotFile
        self.state = Mutex(State(recorder: UsageRecorder(database: nil, bootID: bootID)))
        self.logger = logger
        self.firstOpenAttempted = firstOpenAttempted
        (batches, continuation) = AsyncStream.makeStream()
    }

    /// Queues `batch` for writing; returns at once.
    public func submit(_ batch: Batch) {
        guard !batch.isEmpty else { return }
        continuation.yield(batch)
    }

    /// No batch will follow: the service writes what is queued and waits for its turn to stop.
    public func finish() { continuation.finish() }

    /// How the store is doing now (as of the last open or write).
    public var health: Health { published.withLock { $0.health } }

    /// Runs `body` with the ledger; nil when the ledger is not open (yet). For the few reads and writes outside
    /// batches (reports, D-Bus clients' records): GRDB's writer serializes them with the batches.
    public func withDatabase<Result: Sendable>(_ body: (UsageDatabase) throws -> Result) throws -> Result? {
        let database = published.withLock { $0.database }
        return try database.map(body)
    }

    public func run() async {
        state.withLock { state in
            openIfDue(&state)
            state.health.openAttempted = true
            publish(state)
        }
        firstOpenAttempted()
        for await batch in batches { write(batch) }
        try? await gracefulShutdown()
    }

    /// Makes what `state` says readable by `health` and `withDatabase`.
    private func publish(_ state: State) {
        published.withLock { $0 = (state.health, state.recorder.database) }
    }

    private func write(_ batch: Batch) {
        let fileDue = state.withLock { state in
            for interval in batch.intervals { state.recorder.record(interval) }
            for pickup in batch.pickups { state.recorder.record(pickup) }
            for grant in batch.grants { state.recorder.record(grant) }
            state.recorder.record(batch.records)
            defer { publish(state) }
            if state.recorder.database == nil { openIfDue(&state) }
            if state.recorder.database != nil {
                do {
                    try state.recorder.flush(snapshot: batch.snapshot)
                    if state.health.fault != nil { logger.notice("the usage ledger is written again") }
                    state.health.fault = nil
                } catch {
                    if state.health.fault == nil {
                        logger.error(
                            "could not write the usage ledger; kept in memory and retried",
                            metadata: ["error": "\(error)", "pending": "\(state.recorder.pendingCount)"])
                    }
                    state.health.fault = "\(error)"
                }
            }
            state.health.pending = state.recorder.pendingCount
            // While the ledger isn't written, the file is the snapshot's only copy on disk.
            let ledgerHasIt = state.recorder.database != nil && state.health.fault == nil
            let now = ContinuousClock.now
            guard batch.snapshot != nil,
                batch.snapshotToFileNow || !ledgerHasIt
                    || state.snapshotFileSaved.map({ $0.duration(to: now) >= Self.snapshotFileInterval }) ?? true
            else { return false }
            state.snapshotFileSaved = now
            return true
        }
        if fileDue, let snapshot = batch.snapshot {
            do {
                try snapshotFile.save(snapshot.blob)
            } catch {
                logger.error("could not write the engine snapshot file", metadata: ["error": "\(error)"])
            }
        }
        rollUpIfADayClosed()
    }

    /// Once a local day has closed (and once after the ledger opens), makes the daily rollups of the days that have
    /// none, so a week's or a year's report reads a row per day. Outside the lock: the loop may ask for `health`
    /// meanwhile, and GRDB serializes it with the next batch.
    private func rollUpIfADayClosed() {
        let today = Calendar.current.startOfDay(for: Date())
        let database: UsageDatabase? = state.withLock { state in
            guard state.rolledUpBefore != today, let database = state.recorder.database else { return nil }
            state.rolledUpBefore = today
            return database
        }
        guard let database else { return }
        do {
            try database.rollUpClosedDays(before: today, calendar: .current)
        } catch {
            logger.warning("could not make the daily rollups; reports make them", metadata: ["error": "\(error)"])
        }
    }

    /// Opens the ledger, moving a damaged file aside, unless a failed attempt was made too recently.
    private func openIfDue(_ state: inout State) {
        let now = ContinuousClock.now
        if let next = state.nextOpenAttempt, now < next { return }
        do {
            let directory = (databasePath as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let opened = try UsageDatabase.openRecovering(at: databasePath) { aside, why in
                logger.critical(
                    "the usage database was damaged: moved aside, a fresh one started",
                    metadata: ["reason": "\(why)", "moved to": "\(aside)"])
            }
            state.recorder.attach(opened.database)
            state.rolledUpBefore = nil
            state.health.movedAside = UsageDatabase.movedAsideFiles(of: databasePath)
            state.health.isOpen = true
            state.health.fault = nil
            state.nextOpenAttempt = nil
        } catch {
            if state.health.fault == nil {
                logger.error(
                    "cannot open the usage database; use is kept in memory and the daemon keeps enforcing",
                    metadata: ["path": "\(databasePath)", "error": "\(error)"])
            }
            state.health.fault = "cannot open \(databasePath): \(error)"
            state.nextOpenAttempt = now + Self.reopenInterval
        }
    }
}
