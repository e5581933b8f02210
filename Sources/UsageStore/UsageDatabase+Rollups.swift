import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// The migration that adds the daily rollups: per user and local day, each app's and each category's time, the
    /// pickups, the first pickup and the longest session, so that a week or a year is read from a row per day and
    /// app rather than from every interval. Triggers delete a day's rollup in the same transaction as any interval or
    /// pickup written, changed or removed in it (a late interval, a daemon resuming after a crash), so a rollup is
    /// never older than the intervals it sums; the next report computes the day again.
    static func registerRollupMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-daily-rollups") { db in
            // Keyed by the day's end: the triggers find the days an interval touches from the recent end.
            try db.create(table: "dailyRollup", options: .withoutRowID) { table in
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("dayEndMilliseconds", .integer).notNull()
                table.column("dayStartMilliseconds", .integer).notNull()
                table.column("pickups", .integer).notNull().check { $0 >= 0 }
                // NULL when the day had no pickup, or no use.
                table.column("firstPickupMilliseconds", .integer)
                table.column("longestAppToken", .text)
                table.column("longestCategoryToken", .text)
                table.column("longestStartMilliseconds", .integer)
                table.column("longestEndMilliseconds", .integer)
                table.column("longestDurationMilliseconds", .integer)
                table.check(sql: "dayEndMilliseconds > dayStartMilliseconds")
                table.primaryKey(["uid", "dayEndMilliseconds"])
            }
            try db.create(table: "dailyRollupUse", options: .withoutRowID) { table in
                table.column("uid", .integer).notNull()
                table.column("dayEndMilliseconds", .integer).notNull()
                table.column("kind", .text).notNull().check { ["application", "category"].contains($0) }
                table.column("token", .text).notNull()
                table.column("milliseconds", .integer).notNull().check { $0 >= 0 }
                table.primaryKey(["uid", "dayEndMilliseconds", "kind", "token"])
                table.foreignKey(["uid", "dayEndMilliseconds"], references: "dailyRollup", onDelete: .cascade)
            }
            let stale = { (row: String, start: String, end: String) in
                """
                DELETE FROM dailyRollup
                WHERE uid = (SELECT uid FROM loginSession WHERE id = \(row).sessionRowID)
                  AND dayEndMilliseconds >= \(row).\(start) AND dayStartMilliseconds <= \(row).\(end);
                """
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER usageInterval_inserted_outdates_rollup AFTER INSERT ON usageInterval BEGIN
                        \(stale("NEW", "startMilliseconds", "endMilliseconds"))
                    END;
                    CREATE TRIGGER usageInterval_updated_outdates_rollup AFTER UPDATE ON usageInterval BEGIN
                        \(stale("OLD", "startMilliseconds", "endMilliseconds"))
                        \(stale("NEW", "startMilliseconds", "endMilliseconds"))
                    END;
                    CREATE TRIGGER usageInterval_deleted_outdates_rollup AFTER DELETE ON usageInterval BEGIN
                        \(stale("OLD", "startMilliseconds", "endMilliseconds"))
                    END;
                    CREATE TRIGGER pickup_inserted_outdates_rollup AFTER INSERT ON pickup BEGIN
                        \(stale("NEW", "wallMilliseconds", "wallMilliseconds"))
                    END;
                    CREATE TRIGGER pickup_deleted_outdates_rollup AFTER DELETE ON pickup BEGIN
                        \(stale("OLD", "wallMilliseconds", "wallMilliseconds"))
                    END;
                    """)
        }
    }

    /// The migration that keeps each day's screen time in its rollup (the union of all its intervals: the apps' times
    /// add up to more where several count at once). The rollups made before it lack that figure: they are dropped,
    /// and made again from the intervals, which the ledger keeps, by the next report or the daemon's next roll-up.
    static func registerRollupTotalMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6-rollup-screen-time") { db in
            try db.execute(sql: "DELETE FROM dailyRollupUse; DELETE FROM dailyRollup")
            try db.alter(table: "dailyRollup") { table in
                table.add(column: "totalMilliseconds", .integer).notNull().defaults(to: 0).check { $0 >= 0 }
            }
        }
    }

    /// One report per local day in `days` (consecutive, in order). A day that ended by `now` comes from its rollup,
    /// made here from the raw intervals when it has none (and kept, when the ledger can be written); the day still
    /// running is read from the raw intervals.
    public func report(for user: UserID, days: [DateInterval], now: Date) throws -> [UsageReport] {
        guard !days.isEmpty else { return [] }
        let closed = days.filter { $0.end <= now }
        var reports = try writer.read { db in try Self.rollups(db, for: user, days: closed) }
        let missing = closed.filter { reports[$0.end.millisecondsSince1970]?.start != $0.start }
        if !missing.isEmpty {
            do {
                // Read and written in one transaction: no interval can arrive between the sums and their rows.
                let made = try writer.write { db in
                    let made = try Self.reports(db, for: user, segments: missing)
                    for report in made { try Self.saveRollup(report, db) }
                    return made
                }
                for report in made { reports[report.end.millisecondsSince1970] = report }
            } catch let error as DatabaseError
                where [.SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_BUSY, .SQLITE_CANTOPEN].contains(
                    error.resultCode)
            {
                // Rollups are a cache: a ledger that can't take them now (read-only, a full disk, busy) is read as is.
                for report in try self.reports(for: user, segments: missing) {
                    reports[report.end.millisecondsSince1970] = report
                }
            }
        }
        let open = days.filter { $0.end > now }.map {
            DateInterval(start: $0.start, end: max($0.start, min($0.end, now)))
        }
        let live = try self.reports(for: user, segments: open)
        return days.map { day in
            reports[day.end.millisecondsSince1970] ?? live.first { $0.start == day.start }!
        }
    }

    /// The rollups of `days` that exist, by the day's end.
    private static func rollups(_ db: Database, for user: UserID, days: [DateInterval]) throws -> [Int64: UsageReport] {
        guard let first = days.first, let last = days.last else { return [:] }
        let arguments: StatementArguments = [
            Int64(user.rawValue), first.end.millisecondsSince1970, last.end.millisecondsSince1970,
        ]
        var reports: [Int64: UsageReport] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT dayEndMilliseconds, dayStartMilliseconds, pickups, firstPickupMilliseconds, longestAppToken,
                       longestCategoryToken, longestStartMilliseconds, longestEndMilliseconds, longestDurationMilliseconds,
                       totalMilliseconds
                FROM dailyRollup WHERE uid = ? AND dayEndMilliseconds BETWEEN ? AND ?
                """,
            arguments: arguments)
        while let row = try rows.next() {
            let end: Int64 = row[0]
            let longest = (row[4] as String?).map { application in
                UsageReport.LongestSession(
                    use: AppUse(
                        application: ApplicationToken(rawValue: application),
                        category: ActivityCategoryToken(rawValue: row[5])),
                    start: Date(millisecondsSince1970: row[6]), end: Date(millisecondsSince1970: row[7]),
                    duration: .milliseconds(row[8] as Int64))
            }
            reports[end] = UsageReport(
                user: user, start: Date(millisecondsSince1970: row[1]), end: Date(millisecondsSince1970: end),
                durationByApplication: [:], durationByCategory: [:], pickups: row[2],
                firstPickup: (row[3] as Int64?).map(Date.init(millisecondsSince1970:)), longestSession: longest,
                totalDuration: .milliseconds(row[9] as Int64))
        }
        let uses = try Row.fetchCursor(
            db,
            sql: """
                SELECT dayEndMilliseconds, kind, token, milliseconds
                FROM dailyRollupUse WHERE uid = ? AND dayEndMilliseconds BETWEEN ? AND ?
                """,
            arguments: arguments)
        while let row = try uses.next() {
            let end: Int64 = row[0]
            let duration = Duration.milliseconds(row[3] as Int64)
            if (row[1] as String) == "application" {
                reports[end]?.durationByApplication[ApplicationToken(rawValue: row[2])] = duration
            } else {
                reports[end]?.durationByCategory[ActivityCategoryToken(rawValue: row[2])] = duration
            }
        }
        return reports
    }

    private static func saveRollup(_ report: UsageReport, _ db: Database) throws {
        let uid = Int64(report.user.rawValue)
        let end = report.end.millisecondsSince1970
        let longest = report.longestSession
        try db.execute(sql: "DELETE FROM dailyRollup WHERE uid = ? AND dayEndMilliseconds = ?", arguments: [uid, end])
        try db.execute(
            sql: """
                INSERT INTO dailyRollup (uid, dayEndMilliseconds, dayStartMilliseconds, pickups,
                    firstPickupMilliseconds, longestAppToken, longestCategoryToken, longestStartMilliseconds,
                    longestEndMilliseconds, longestDurationMilliseconds, totalMilliseconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                uid, end, report.start.millisecondsSince1970, report.pickups,
                report.firstPickup?.millisecondsSince1970, longest?.use.application.rawValue,
                longest?.use.category.rawValue, longest?.start.millisecondsSince1970,
                longest?.end.millisecondsSince1970, longest?.duration.wholeMilliseconds,
                report.totalDuration.wholeMilliseconds,
            ])
        let insert = try db.cachedStatement(
            sql:
                "INSERT INTO dailyRollupUse (uid, dayEndMilliseconds, kind, token, milliseconds) VALUES (?, ?, ?, ?, ?)"
        )
        for (token, duration) in report.durationByApplication {
            try insert.execute(arguments: [uid, end, "application", token.rawValue, duration.wholeMilliseconds])
        }
        for (token, duration) in report.durationByCategory {
            try insert.execute(arguments: [uid, end, "category", token.rawValue, duration.wholeMilliseconds])
        }
    }
}

extension UsageDatabase {
    /// Makes the rollups of every user's closed local days that have none: from the day of the latest rollup (or
    /// of the first interval) to yesterday. The daemon calls it as days close; a report makes any still missing.
    /// Returns how many days it looked at.
    @discardableResult
    public func rollUpClosedDays(before now: Date, calendar: Calendar) throws -> Int {
        let today = calendar.startOfDay(for: now)
        let starts = try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.uid AS uid,
                           COALESCE((SELECT MAX(r.dayStartMilliseconds) FROM dailyRollup r WHERE r.uid = s.uid),
                                    (SELECT MIN(i.startMilliseconds) FROM usageInterval i
                                     JOIN loginSession t ON t.id = i.sessionRowID WHERE t.uid = s.uid)) AS first
                    FROM (SELECT DISTINCT uid FROM loginSession) s
                    """
            ).compactMap { row -> (UserID, Date)? in
                guard let first = row["first"] as Int64? else { return nil }
                return (UserID(UInt32(clamping: row["uid"] as Int64)), Date(millisecondsSince1970: first))
            }
        }
        var count = 0
        for (user, first) in starts {
            var days: [DateInterval] = []
            var start = calendar.startOfDay(for: first)
            while start < today {
                let end = calendar.startOfDay(1, after: start)
                days.append(DateInterval(start: start, end: end))
                start = end
            }
            if !days.isEmpty { _ = try report(for: user, days: days, now: today) }
            count += days.count
        }
        return count
    }
}
