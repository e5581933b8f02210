import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// The migration that adds what the daemon records as the day happens (`DayRecords`); registered after every
    /// earlier one, so the data already kept stays.
    static func registerDayRecordsMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-day-records") { db in
            try db.create(table: AppLabelRecord.databaseTableName) { table in
                table.primaryKey("token", .text).check { length($0) > 0 }
                table.column("appID", .text).notNull().check { length($0) > 0 }
                table.column("name", .text).notNull()
                table.column("category", .text).notNull()
                table.column("categoryToken", .text).notNull()
                table.column("updatedAtMilliseconds", .integer).notNull()
            }
            try db.create(table: NotificationRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("wallMilliseconds", .integer).notNull()
                table.column("kind", .text).notNull()
                    .check { NotificationRecord.Kind.allCases.map(\.rawValue).contains($0) }
                table.column("limit", .text).notNull()
                table.column("title", .text).notNull()
            }
            try db.create(
                index: "notification_on_uid_time", on: NotificationRecord.databaseTableName,
                columns: ["uid", "wallMilliseconds"])
            try db.create(table: ShieldIntervalRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("kind", .text).notNull()
                    .check { ShieldIntervalRecord.Kind.allCases.map(\.rawValue).contains($0) }
                table.column("token", .text).notNull()
                table.column("startMilliseconds", .integer).notNull()
                table.column("endMilliseconds", .integer).notNull()
                table.column("durationMilliseconds", .integer).notNull().check { $0 >= 0 }
                table.check(sql: "endMilliseconds >= startMilliseconds")
                table.uniqueKey(["uid", "kind", "token", "startMilliseconds"])
            }
            try db.create(
                index: "shieldInterval_on_uid_end", on: ShieldIntervalRecord.databaseTableName,
                columns: ["uid", "endMilliseconds"])
            try db.create(table: DailyLimitRecord.databaseTableName) { table in
                table.column("day", .text).notNull().check { length($0) == 10 }
                table.column("limit", .text).notNull().check { length($0) > 0 }
                table.column("seconds", .integer).notNull().check { $0 >= 0 }
                table.column("recordedAtMilliseconds", .integer).notNull()
                table.primaryKey(["day", "limit"])
            }
        }
    }

    /// `appNotification`, added to a store that has the day records.
    static func registerAppNotificationMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-app-notifications") { db in
            try db.create(table: AppNotificationRecord.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("wallMilliseconds", .integer).notNull()
                table.column("token", .text).notNull()
            }
            try db.create(
                index: "appNotification_on_uid_time", on: AppNotificationRecord.databaseTableName,
                columns: ["uid", "wallMilliseconds"])
        }
    }

    /// Writes `records` in the caller's transaction: labels and daily limits replace their row, shield intervals
    /// extend theirs (same user, kind, token and start), notifications are added.
    static func write(_ records: DayRecords, _ db: Database) throws {
        for label in records.appLabels { try label.upsert(db) }
        for limit in records.dailyLimits { try limit.upsert(db) }
        for var notification in records.notifications { try notification.insert(db) }
        for var notification in records.appNotifications { try notification.insert(db) }
        for shield in records.shieldIntervals {
            try db.execute(
                sql: """
                    INSERT INTO shieldInterval (uid, kind, token, startMilliseconds, endMilliseconds, durationMilliseconds)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (uid, kind, token, startMilliseconds) DO UPDATE SET
                        endMilliseconds = max(endMilliseconds, excluded.endMilliseconds),
                        durationMilliseconds = max(durationMilliseconds, excluded.durationMilliseconds)
                    """,
                arguments: [
                    shield.uid, shield.kind.rawValue, shield.token, shield.startMilliseconds, shield.endMilliseconds,
                    shield.durationMilliseconds,
                ])
        }
    }

    /// Every app label the daemon wrote, by token.
    public func appLabels() throws -> [ApplicationToken: AppLabelRecord] {
        try writer.read { db in
            Dictionary(
                try AppLabelRecord.fetchAll(db).map { ($0.applicationToken, $0) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// The notifications sent to `user` from `start` (inclusive) to `end` (exclusive), oldest first.
    public func notifications(for user: UserID, from start: Date, to end: Date) throws -> [NotificationRecord] {
        try rows(of: user, from: start, to: end)
    }

    /// The notifications apps sent `user` from `start` (inclusive) to `end` (exclusive), oldest first.
    public func appNotifications(for user: UserID, from start: Date, to end: Date) throws -> [AppNotificationRecord] {
        try rows(of: user, from: start, to: end)
    }

    /// The rows of a table of `uid` and `wallMilliseconds` for `user` from `start` (inclusive) to `end` (exclusive),
    /// oldest first.
    private func rows<Record: FetchableRecord & TableRecord>(of user: UserID, from start: Date, to end: Date) throws
        -> [Record]
    {
        try writer.read { db in
            try Record
                .filter(Column("uid") == Int64(user.rawValue))
                .filter(Column("wallMilliseconds") >= start.millisecondsSince1970)
                .filter(Column("wallMilliseconds") < end.millisecondsSince1970)
                .order(Column("wallMilliseconds"), Column("id"))
                .fetchAll(db)
        }
    }

    /// How many notifications each app sent `user` from `start` (inclusive) to `end` (exclusive), by token.
    public func appNotificationCounts(for user: UserID, from start: Date, to end: Date) throws
        -> [ApplicationToken: Int]
    {
        let rows = try writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT token, count(*) AS sent FROM appNotification "
                    + "WHERE uid = ? AND wallMilliseconds >= ? AND wallMilliseconds < ? GROUP BY token",
                arguments: [Int64(user.rawValue), start.millisecondsSince1970, end.millisecondsSince1970])
        }
        return Dictionary(uniqueKeysWithValues: rows.map { (ApplicationToken(rawValue: $0["token"]), $0["sent"]) })
    }

    /// What was shielded for `user` between `start` and `end`: per app (by token), per category and for every app,
    /// each the union of its intervals inside the range (monotonic time: a suspended machine shields nothing), and
    /// `total`, the time anything at all was shielded.
    public func shieldedTime(for user: UserID, from start: Date, to end: Date) throws -> ShieldedTime {
        try shieldedTime(for: user, segments: [DateInterval(start: start, end: max(start, end))])[0]
    }

    /// `shieldedTime(for:from:to:)` for each of consecutive segments (hours or days), read once.
    public func shieldedTime(for user: UserID, segments: [DateInterval]) throws -> [ShieldedTime] {
        guard let first = segments.first, let last = segments.last else { return [] }
        let rows = try writer.read { db in
            try ShieldIntervalRecord
                .filter(Column("uid") == Int64(user.rawValue))
                .filter(Column("endMilliseconds") >= first.start.millisecondsSince1970)
                .filter(Column("startMilliseconds") < last.end.millisecondsSince1970)
                .fetchAll(db)
        }
        return segments.map { segment in
            let from = segment.start.millisecondsSince1970
            let to = segment.end.millisecondsSince1970
            var byTarget: [ShieldedTime.Target: [Span]] = [:]
            for row in rows where row.startMilliseconds < to && row.endMilliseconds >= from {
                byTarget[ShieldedTime.Target(kind: row.kind, token: row.token), default: []].append(
                    Span(start: row.startMilliseconds, end: row.endMilliseconds, duration: row.durationMilliseconds))
            }
            return ShieldedTime(
                total: Span.union(byTarget.values.flatMap { $0 }, from: from, to: to),
                byTarget: byTarget.mapValues { Span.union($0, from: from, to: to) }.filter { $0.value > .zero })
        }
    }

    /// The limits `user` had on each local day from `firstDay` to `lastDay` (inclusive, `YYYY-MM-DD`), by day then
    /// limit: theirs, or on a day recorded before limits were recorded by user, everyone's.
    public func dailyLimits(for user: UserID, from firstDay: String, through lastDay: String) throws
        -> [DailyLimitRecord]
    {
        let rows = try writer.read { db in
            try DailyLimitRecord
                .filter(Column("day") >= firstDay && Column("day") <= lastDay)
                .filter(Column("uid") == Int64(user.rawValue) || Column("uid") == DailyLimitRecord.anyUser)
                .order(Column("day"), Column("limit"), Column("uid").desc)
                .fetchAll(db)
        }
        // The user's own row first (uid descending): a row for everyone of the same day and limit is left out.
        var seen: Set<[String]> = []
        return rows.filter { seen.insert([$0.day, $0.limit]).inserted }
    }

    /// `dailyLimit` by user: the rows written before hold for every user (`DailyLimitRecord.anyUser`).
    static func registerDailyLimitUsersMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-daily-limit-users") { db in
            try db.create(table: "dailyLimitByUser") { table in
                table.column("uid", .integer).notNull().check { $0 >= DailyLimitRecord.anyUser }
                table.column("day", .text).notNull().check { length($0) == 10 }
                table.column("limit", .text).notNull().check { length($0) > 0 }
                table.column("seconds", .integer).notNull().check { $0 >= 0 }
                table.column("recordedAtMilliseconds", .integer).notNull()
                table.primaryKey(["uid", "day", "limit"])
            }
            try db.execute(
                sql: """
                    INSERT INTO dailyLimitByUser (uid, day, "limit", seconds, recordedAtMilliseconds)
                    SELECT ?, day, "limit", seconds, recordedAtMilliseconds FROM dailyLimit
                    """, arguments: [DailyLimitRecord.anyUser])
            try db.drop(table: DailyLimitRecord.databaseTableName)
            try db.rename(table: "dailyLimitByUser", to: DailyLimitRecord.databaseTableName)
        }
    }
}

/// How long things were shielded for a user over a range.
public struct ShieldedTime: Hashable, Sendable {
    /// One thing shielded.
    public struct Target: Hashable, Sendable {
        public var kind: ShieldIntervalRecord.Kind
        /// The app's or category's token; empty for every app.
        public var token: String

        /// Creates a target.
        public init(kind: ShieldIntervalRecord.Kind, token: String) {
            self.kind = kind
            self.token = token
        }
    }

    /// The time anything was shielded (overlapping shields once).
    public var total: Duration
    /// The time each thing was shielded.
    public var byTarget: [Target: Duration]
}
