import Foundation
import GRDB

/// The usage ledger: one SQLite database (WAL mode) holding usage intervals, pickups, the engine's snapshot,
/// the settings stores and extra-time grants.
///
/// Open it once for the life of the process (`open(at:)`), or in memory for tests (`inMemory()`); both run the
/// migrator, so the schema is always current. Rules live in the schema: every column is `NOT NULL`, durations and
/// times are checked, and rows that name a login session reference it by foreign key.
///
/// Errors are GRDB's `DatabaseError` (with SQLite's result code) and Foundation's file errors.
public struct UsageDatabase: Sendable {
    /// The one writer of the database (a `DatabasePool` on disk, a `DatabaseQueue` in memory).
    public let writer: any DatabaseWriter

    /// Wraps an open writer and brings its schema up to date.
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// Opens (creating if needed) the database file at `path` in WAL mode and migrates it.
    /// The directory must exist.
    public static func open(at path: String) throws -> UsageDatabase {
        try UsageDatabase(DatabasePool(path: path, configuration: configuration))
    }

    /// A fresh database in memory, migrated; for tests.
    public static func inMemory() throws -> UsageDatabase {
        try UsageDatabase(DatabaseQueue(configuration: configuration))
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // A second process (the CLI reading reports) may hold a lock for a moment.
        configuration.busyMode = .timeout(5)
        return configuration
    }

    /// The names of the migrations applied to this database, oldest first.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }

    /// The schema's history. Migrations are append-only: once released, a migration is never edited; a change
    /// is a new migration with the next name (`v2-…`).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-usage-ledger") { db in
            try db.create(table: LoginSessionRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("bootID", .text).notNull()
                table.column("sessionID", .text).notNull()
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.uniqueKey(["bootID", "sessionID"])
            }
            try db.create(table: UsageIntervalRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("sessionRowID", .integer).notNull()
                    .references(LoginSessionRecord.databaseTableName, onDelete: .cascade)
                table.column("appToken", .text).notNull()
                table.column("categoryToken", .text).notNull()
                table.column("startMilliseconds", .integer).notNull()
                table.column("endMilliseconds", .integer).notNull()
                table.column("durationMilliseconds", .integer).notNull().check { $0 >= 0 }
                table.check(sql: "endMilliseconds >= startMilliseconds")
            }
            try db.create(
                index: "usageInterval_on_session_start", on: UsageIntervalRecord.databaseTableName,
                columns: ["sessionRowID", "startMilliseconds"])
            try db.create(
                index: "usageInterval_on_end", on: UsageIntervalRecord.databaseTableName,
                columns: ["endMilliseconds"])
            try db.create(table: PickupRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("sessionRowID", .integer).notNull()
                    .references(LoginSessionRecord.databaseTableName, onDelete: .cascade)
                table.column("appToken", .text).notNull()
                table.column("wallMilliseconds", .integer).notNull()
            }
            try db.create(
                index: "pickup_on_session_time", on: PickupRecord.databaseTableName,
                columns: ["sessionRowID", "wallMilliseconds"])
            try db.create(table: EngineSnapshotRecord.databaseTableName) { table in
                table.primaryKey("scope", .text)
                table.column("version", .integer).notNull().check { $0 >= 1 }
                table.column("blob", .blob).notNull()
                table.column("savedAtMilliseconds", .integer).notNull()
            }
            try db.create(table: SettingsStoreRecord.databaseTableName) { table in
                table.primaryKey("name", .text).check { length($0) > 0 }
                table.column("json", .text).notNull()
                table.column("updatedAtMilliseconds", .integer).notNull()
            }
            try db.create(table: ExtraTimeGrant.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("target", .text).notNull().check { length($0) > 0 }
                table.column("seconds", .integer).notNull().check { $0 > 0 }
                table.column("grantedAtMilliseconds", .integer).notNull()
                table.column("reason", .text).notNull()
            }
            try db.create(
                index: "extraTimeGrant_on_uid_time", on: ExtraTimeGrant.databaseTableName,
                columns: ["uid", "grantedAtMilliseconds"])
        }
        registerClientMigration(in: &migrator)
        registerDayRecordsMigration(in: &migrator)
        registerRollupMigration(in: &migrator)
        registerAppNotificationMigration(in: &migrator)
        registerRollupTotalMigration(in: &migrator)
        registerDailyLimitUsersMigration(in: &migrator)
        return migrator
    }
}

extension Date {
    /// Milliseconds since 1970, as the ledger stores wall times.
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The date `milliseconds` after 1970.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
