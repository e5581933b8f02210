import Foundation
import GRDB
import ScreenTimeModel
import Testing

@testable import UsageStore

@Suite struct UsageDatabaseTests {
    @Test func migratesAnEmptyFileAndReopensItWithoutMigratingAgain() throws {
        let migrations = [
            "v1-usage-ledger", "v2-client-values", "v3-day-records", "v4-daily-rollups", "v5-app-notifications",
            "v6-rollup-screen-time", "v7-daily-limit-users",
        ]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        do {
            let database = try UsageDatabase.open(at: directory.databasePath)
            #expect(try database.appliedMigrations() == migrations)
            let journalMode = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(journalMode == "wal")
            try database.saveSettingsStore(named: "games", json: #"{"applications":[]}"#, at: Date())
        }
        let reopened = try UsageDatabase.open(at: directory.databasePath)
        #expect(try reopened.appliedMigrations() == migrations)
        #expect(try reopened.settingsStores().map(\.name) == ["games"])
        let tables = try reopened.writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(
            Set(tables).isSuperset(of: [
                "engineSnapshot", "extraTimeGrant", "loginSession", "pickup", "settingsStore", "usageInterval",
            ]))
    }

    @Test func foreignKeysAreEnforced() throws {
        let database = try UsageDatabase.inMemory()
        var orphan = UsageIntervalRecord(
            sessionRowID: 999, appToken: "a", categoryToken: "c", startMilliseconds: 0, endMilliseconds: 1,
            durationMilliseconds: 1)
        let error = #expect(throws: DatabaseError.self) { try database.writer.write { db in try orphan.insert(db) } }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY)

        var pickup = PickupRecord(sessionRowID: 999, appToken: "a", wallMilliseconds: 0)
        #expect(throws: DatabaseError.self) { try database.writer.write { db in try pickup.insert(db) } }
    }

    @Test func notNullAndChecksAreEnforced() throws {
        let database = try UsageDatabase.inMemory()
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO loginSession (bootID, sessionID, uid) VALUES ('b', '1', 1000)")
        }
        let statements = [
            "INSERT INTO loginSession (bootID, sessionID, uid) VALUES ('b', NULL, 1000)",
            "INSERT INTO loginSession (bootID, sessionID, uid) VALUES ('b', '1', 1000)",  // unique per boot
            """
            INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds, endMilliseconds,
              durationMilliseconds) VALUES (1, NULL, 'c', 0, 1, 1)
            """,
            """
            INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds, endMilliseconds,
              durationMilliseconds) VALUES (1, 'a', 'c', 10, 5, 1)
            """,
            """
            INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds, endMilliseconds,
              durationMilliseconds) VALUES (1, 'a', 'c', 0, 5, -1)
            """,
            "INSERT INTO engineSnapshot (scope, version, blob, savedAtMilliseconds) VALUES ('system', 1, NULL, 0)",
            "INSERT INTO engineSnapshot (scope, version, blob, savedAtMilliseconds) VALUES ('system', 0, x'00', 0)",
            "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES ('s', NULL, 0)",
            """
            INSERT INTO extraTimeGrant (uid, target, seconds, grantedAtMilliseconds, reason)
            VALUES (1000, 'games', 0, 0, 'asked')
            """,
        ]
        for statement in statements {
            let error = #expect(throws: DatabaseError.self, "\(statement)") {
                try database.writer.write { db in try db.execute(sql: statement) }
            }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT, "\(statement)")
        }
    }

    @Test func settingsStoresAndGrantsRoundTrip() throws {
        let database = try UsageDatabase.inMemory()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try database.saveSettingsStore(named: "games", json: #"{"a":1}"#, at: now)
        try database.saveSettingsStore(named: "games", json: #"{"a":2}"#, at: now + 1)
        try database.saveSettingsStore(named: "bedtime", json: "{}", at: now)
        #expect(try database.settingsStores().map(\.name) == ["bedtime", "games"])
        #expect(try database.settingsStores().last?.json == #"{"a":2}"#)
        #expect(try database.deleteSettingsStore(named: "bedtime"))
        #expect(try !database.deleteSettingsStore(named: "bedtime"))

        let child = UserID(1001)
        let grant = try database.recordGrant(
            ExtraTimeGrant(user: child, target: "games", seconds: 900, grantedAt: now, reason: "asked"))
        #expect(grant.id != nil)
        try database.recordGrant(
            ExtraTimeGrant(user: UserID(1002), target: "games", seconds: 60, grantedAt: now, reason: "guardian"))
        let found = try database.grants(for: child, from: now - 3600, to: now + 3600)
        #expect(found == [grant])
        #expect(found.first?.grantedAt == now)
    }
}
