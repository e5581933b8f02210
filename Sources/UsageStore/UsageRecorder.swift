import Foundation
import GRDB
import ScreenTimeModel

/// Batches usage in memory and writes it to the ledger in one transaction per `flush()`.
///
/// The daemon calls `record(_:)` each tick and `flush()` at least every 2 s and on stop; a crash loses at most
/// what was recorded since the last flush. An interval reported again with the same `(session, application,
/// start)` extends its row in place (end and duration updated), so an app in front for an hour is one row,
/// not 3,600. A flush that fails keeps everything pending for the next one.
///
/// A value with one owner (the store service); not shared between tasks.
public struct UsageRecorder: Sendable {
    private struct IntervalKey: Hashable, Sendable {
        var session: SessionID
        var application: ApplicationToken
        var startMilliseconds: Int64
    }

    /// What one flush wrote.
    public struct FlushSummary: Hashable, Sendable {
        /// New interval rows.
        public var intervalsInserted: Int
        /// Existing interval rows extended.
        public var intervalsExtended: Int
        /// Pickup rows.
        public var pickupsInserted: Int
        /// Whether an engine snapshot was saved in the same transaction.
        public var savedSnapshot: Bool
    }

    /// The ledger written to; nil while it can't be opened (everything stays pending until `attach(_:)`).
    public private(set) var database: UsageDatabase?
    private let bootID: String
    private var pendingIntervals: [IntervalKey: UsageInterval] = [:]
    private var pendingPickups: [Pickup] = []
    private var pendingGrants: [ExtraTimeGrant] = []
    private var pendingRecords = DayRecords()
    private var sessionRows: [SessionID: Int64] = [:]
    /// Row ids of intervals written by the last flush: the ones still open, most likely to be extended next.
    private var openIntervalRows: [IntervalKey: Int64] = [:]

    /// Creates a recorder for the current boot (`/proc/sys/kernel/random/boot_id`), which scopes session ids.
    public init(database: UsageDatabase?, bootID: String) {
        self.database = database
        self.bootID = bootID
    }

    /// Writes to `database` from the next flush on (a ledger opened again, or anew after the old one was moved aside).
    public mutating func attach(_ database: UsageDatabase) {
        self.database = database
        sessionRows = [:]
        openIntervalRows = [:]
    }

    /// How many intervals, pickups, grants and day records wait for the next flush.
    public var pendingCount: Int {
        pendingIntervals.count + pendingPickups.count + pendingGrants.count + pendingRecords.count
    }

    /// Notes an interval (new or extended); the latest report of a stretch wins.
    public mutating func record(_ interval: UsageInterval) {
        let key = IntervalKey(
            session: interval.session, application: interval.use.application,
            startMilliseconds: interval.start.millisecondsSince1970)
        pendingIntervals[key] = interval
    }

    /// Notes a pickup.
    public mutating func record(_ pickup: Pickup) {
        pendingPickups.append(pickup)
    }

    /// Notes a grant of extra time.
    public mutating func record(_ grant: ExtraTimeGrant) {
        pendingGrants.append(grant)
    }

    /// Notes what the day recorded besides usage (labels, notifications, shields, limits).
    public mutating func record(_ records: DayRecords) {
        pendingRecords.append(records)
    }

    /// Writes everything pending, and `snapshot` if given, in one transaction.
    ///
    /// Saving the engine's snapshot in the same transaction keeps its counters and the ledger consistent after
    /// a crash. On error nothing is written and everything stays pending.
    ///
    /// - Throws: `UsageStoreUnavailable` without a database, else GRDB's `DatabaseError`.
    @discardableResult
    public mutating func flush(snapshot: EngineSnapshotRecord? = nil) throws -> FlushSummary {
        guard let database else { throw UsageStoreUnavailable() }
        let intervals = pendingIntervals
        let pickups = pendingPickups
        let grants = pendingGrants
        let records = pendingRecords
        var sessionRows = self.sessionRows
        let openRows = openIntervalRows
        let bootID = bootID
        let (summary, writtenRows) = try database.writer.write { db in
            var summary = FlushSummary(
                intervalsInserted: 0, intervalsExtended: 0, pickupsInserted: 0, savedSnapshot: false)
            var writtenRows: [IntervalKey: Int64] = [:]
            func sessionRow(_ session: SessionID, _ user: UserID) throws -> Int64 {
                if let row = sessionRows[session] { return row }
                let row = try Self.sessionRow(db, bootID: bootID, session: session, user: user)
                sessionRows[session] = row
                return row
            }
            for (key, interval) in intervals.sorted(by: { $0.key.startMilliseconds < $1.key.startMilliseconds }) {
                let sessionRowID = try sessionRow(interval.session, interval.user)
                var record = UsageIntervalRecord(
                    id: openRows[key], sessionRowID: sessionRowID, appToken: interval.use.application.rawValue,
                    categoryToken: interval.use.category.rawValue, startMilliseconds: key.startMilliseconds,
                    endMilliseconds: interval.end.millisecondsSince1970,
                    durationMilliseconds: interval.duration.wholeMilliseconds)
                if record.id == nil {
                    // Not extended by the last flush: it may still be a row written earlier (a pause in reports,
                    // a restarted daemon), found by its key.
                    record.id = try Int64.fetchOne(
                        db,
                        sql: """
                            SELECT id FROM usageInterval
                            WHERE sessionRowID = ? AND appToken = ? AND startMilliseconds = ?
                            """,
                        arguments: [sessionRowID, record.appToken, record.startMilliseconds])
                }
                if record.id != nil {
                    try record.update(db)
                    summary.intervalsExtended += 1
                } else {
                    try record.insert(db)
                    summary.intervalsInserted += 1
                }
                writtenRows[key] = record.id
            }
            for pickup in pickups {
                var record = PickupRecord(
                    sessionRowID: try sessionRow(pickup.session, pickup.user),
                    appToken: pickup.application.rawValue, wallMilliseconds: pickup.time.millisecondsSince1970)
                try record.insert(db)
                summary.pickupsInserted += 1
            }
            for grant in grants {
                var grant = grant
                try grant.insert(db)
            }
            try UsageDatabase.write(records, db)
            if let snapshot {
                try snapshot.save(db)
                summary.savedSnapshot = true
            }
            return (summary, writtenRows)
        }
        self.sessionRows = sessionRows
        openIntervalRows = writtenRows
        pendingIntervals = [:]
        pendingPickups = []
        pendingGrants = []
        pendingRecords = DayRecords()
        return summary
    }

    /// Saves the engine's snapshot now, replacing the previous one of its scope.
    public func saveSnapshot(_ snapshot: EngineSnapshotRecord) throws {
        guard let database else { throw UsageStoreUnavailable() }
        try database.writer.write { db in try snapshot.save(db) }
    }

    /// The latest snapshot saved for `scope`, if any.
    public func loadSnapshot(scope: String) throws -> EngineSnapshotRecord? {
        try database?.snapshot(scope: scope)
    }

    private static func sessionRow(_ db: Database, bootID: String, session: SessionID, user: UserID) throws -> Int64 {
        if let row =
            try LoginSessionRecord
            .filter(Column("bootID") == bootID && Column("sessionID") == session.rawValue)
            .fetchOne(db), let id = row.id
        {
            return id
        }
        var record = LoginSessionRecord(bootID: bootID, sessionID: session.rawValue, uid: Int64(user.rawValue))
        try record.insert(db)
        return record.id!
    }
}

/// The ledger is not open (it could not be opened yet): what was recorded stays pending.
public struct UsageStoreUnavailable: Error, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// A sentence for the log.
    public var description: String { "the usage database is not open" }
}
