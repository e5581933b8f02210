import Foundation
import GRDB
import ScreenTimeModel
import Testing

@testable import UsageStore

/// The migrations after the first keep the data a ledger already holds.
@Suite struct MigrationTests {
    /// Makes a ledger at `path` migrated up to `migration`, with one login session of `user` (row 1), and what `body`
    /// writes in it; closed on return.
    func oldLedger(at path: String, upTo migration: String, user: UserID, _ body: (Database) throws -> Void) throws {
        let pool = try DatabasePool(path: path)
        try UsageDatabase.migrator.migrate(pool, upTo: migration)
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO loginSession (bootID, sessionID, uid) VALUES ('boot', 's1', ?)",
                arguments: [user.rawValue])
            try body(db)
        }
    }

    @Test func aLedgerOfTheFirstVersionsKeepsItsIntervalsAndGainsTheDayRecords() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let user = UserID(1001)
        let use = AppUse(
            application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat"))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try oldLedger(at: directory.databasePath, upTo: "v2-client-values", user: user) { db in
            try db.execute(
                sql: """
                    INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds, endMilliseconds,
                                               durationMilliseconds)
                    VALUES (1, ?, ?, ?, ?, 600000)
                    """,
                arguments: [
                    use.application.rawValue, use.category.rawValue, start.millisecondsSince1970,
                    (start + 600).millisecondsSince1970,
                ])
        }
        let database = try UsageDatabase.open(at: directory.databasePath)
        #expect(try database.appliedMigrations() == UsageDatabase.migrator.migrations)
        let report = try database.report(for: user, from: start, to: start + 3600)
        #expect(report.durationByApplication == [use.application: .seconds(600)])
        var recorder = UsageRecorder(database: database, bootID: "boot")
        var records = DayRecords()
        records.notifications.append(
            NotificationRecord(user: user, time: start + 60, kind: .warning, limit: "games", title: "t"))
        records.appNotifications += [
            AppNotificationRecord(user: user, time: start + 30, application: use.application),
            AppNotificationRecord(user: user, time: start + 90, application: use.application),
            AppNotificationRecord(user: UserID(1002), time: start + 90, application: use.application),
            AppNotificationRecord(user: user, time: start + 4000, application: use.application),
        ]
        records.shieldIntervals.append(
            ShieldIntervalRecord(
                user: user, kind: .application, token: use.application.rawValue, start: start + 600,
                end: start + 900, duration: .seconds(300)))
        recorder.record(records)
        try recorder.flush()
        #expect(try database.notifications(for: user, from: start, to: start + 3600).count == 1)
        // Each app's notifications, the user's own and inside the range only.
        #expect(try database.appNotificationCounts(for: user, from: start, to: start + 3600) == [use.application: 2])
        #expect(try database.shieldedTime(for: user, from: start, to: start + 3600).total == .seconds(300))
    }

    @Test func aShieldIntervalWrittenAgainIsExtendedNotDuplicated() throws {
        let database = try UsageDatabase.inMemory()
        let user = UserID(7)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var recorder = UsageRecorder(database: database, bootID: "boot")
        for seconds in [1, 2, 60] {
            var records = DayRecords()
            records.shieldIntervals.append(
                ShieldIntervalRecord(
                    user: user, kind: .all, token: "", start: start, end: start + TimeInterval(seconds),
                    duration: .seconds(seconds)))
            recorder.record(records)
            try recorder.flush()
        }
        let rows = try database.writer.read { try ShieldIntervalRecord.fetchAll($0) }
        #expect(rows.count == 1)
        #expect(rows.first?.durationMilliseconds == 60_000)
    }

    /// The rollups made before the ledger kept each day's total are dropped by its migration, and the next report
    /// makes them again from the intervals, with the total.
    @Test func rollupsWithoutTheirTotalAreMadeAgainFromTheIntervals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let user = UserID(1001)
        let day = DateInterval(start: Date(timeIntervalSince1970: 1_795_564_800), duration: 86_400)
        let start = day.start.millisecondsSince1970 + 3_600_000
        try oldLedger(at: directory.databasePath, upTo: "v5-app-notifications", user: user) { db in
            // Two apps running together for ten minutes.
            for token in ["tok-a", "tok-b"] {
                try db.execute(
                    sql: """
                        INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds,
                                                   endMilliseconds, durationMilliseconds)
                        VALUES (1, ?, 'cat', ?, ?, 600000)
                        """,
                    arguments: [token, start, start + 600_000])
            }
            try db.execute(
                sql: """
                    INSERT INTO dailyRollup (uid, dayEndMilliseconds, dayStartMilliseconds, pickups)
                    VALUES (?, ?, ?, 0);
                    INSERT INTO dailyRollupUse (uid, dayEndMilliseconds, kind, token, milliseconds)
                    VALUES (?, ?, 'application', 'tok-a', 600000), (?, ?, 'application', 'tok-b', 600000);
                    """,
                arguments: [
                    user.rawValue, day.end.millisecondsSince1970, day.start.millisecondsSince1970,
                    user.rawValue, day.end.millisecondsSince1970, user.rawValue, day.end.millisecondsSince1970,
                ])
        }
        let database = try UsageDatabase.open(at: directory.databasePath)
        let counts = try database.writer.read { db in
            try ["dailyRollup", "dailyRollupUse"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") }
        }
        #expect(counts == [0, 0])
        let report = try #require(try database.report(for: user, days: [day], now: day.end).first)
        #expect(report.totalDuration == .seconds(600))
        #expect(report.durationByApplication.count == 2)
        let kept = try database.writer.read { db in
            try Int64.fetchOne(db, sql: "SELECT totalMilliseconds FROM dailyRollup")
        }
        #expect(kept == 600_000)
    }

    @Test func dailyLimitsWrittenBeforeTheyWereByUserHoldForEveryUserUntilOneHasItsOwn() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (alice, bob) = (UserID(1001), UserID(1002))
        try oldLedger(at: directory.databasePath, upTo: "v6-rollup-screen-time", user: alice) { db in
            try db.execute(
                sql: """
                    INSERT INTO dailyLimit (day, "limit", seconds, recordedAtMilliseconds)
                    VALUES ('2026-11-25', 'games', 3600, 0), ('2026-11-26', 'games', 3600, 0)
                    """)
        }
        let database = try UsageDatabase.open(at: directory.databasePath)
        var records = DayRecords()
        records.dailyLimits = [
            DailyLimitRecord(user: alice, day: "2026-11-26", limit: "games", seconds: 1800, recordedAt: Date())
        ]
        try database.writer.write { db in try UsageDatabase.write(records, db) }
        let forAlice = try database.dailyLimits(for: alice, from: "2026-11-25", through: "2026-11-26")
        #expect(forAlice.map { "\($0.day) \($0.seconds)" } == ["2026-11-25 3600", "2026-11-26 1800"])
        let forBob = try database.dailyLimits(for: bob, from: "2026-11-25", through: "2026-11-26")
        #expect(forBob.map { "\($0.day) \($0.seconds)" } == ["2026-11-25 3600", "2026-11-26 3600"])
    }
}
