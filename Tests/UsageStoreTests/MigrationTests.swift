import Foundation
import GRDB
import ScreenTimeModel
import Testing

@testable import UsageStore

/// The migrations after the first keep the data a ledger already holds.
@Suite struct MigrationTests {
    @Test func aLedgerOfTheFirstVersionsKeepsItsIntervalsAndGainsTheDayRecords() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let user = UserID(1001)
        let use = AppUse(
            application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat"))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let pool = try DatabasePool(path: directory.databasePath)
            try UsageDatabase.migrator.migrate(pool, upTo: "v2-client-values")
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO loginSession (bootID, sessionID, uid) VALUES ('boot', 's1', ?)",
                    arguments: [user.rawValue])
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
}
