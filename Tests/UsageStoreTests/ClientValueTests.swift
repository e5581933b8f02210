import Foundation
import GRDB
import ScreenTimeModel
import Testing

@testable import UsageStore

@Suite struct ClientValueTests {
    @Test func theClientMigrationKeepsTodaysDataAndKeysValuesByClient() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A database as the previous release left it: the first migration only, with a store in it.
        do {
            let queue = try DatabaseQueue(path: directory.databasePath)
            try UsageDatabase.migrator.migrate(queue, upTo: "v1-usage-ledger")
            try queue.write { db in
                try SettingsStoreRecord(name: "games", json: "{}", updatedAt: Date()).save(db)
            }
        }
        let database = try UsageDatabase.open(at: directory.databasePath)
        #expect(try database.settingsStores().map(\.name) == ["games"])

        let now = Date()
        for app in ["org.example.A", "org.example.B"] {
            try database.saveClientValue(
                ClientValueRecord(
                    user: UserID(1000), client: AppID(app), kind: .settingsStore, name: "default", json: app,
                    updatedAt: now))
        }
        try database.saveClientValue(
            ClientValueRecord(
                user: UserID(1000), client: AppID("org.example.A"), kind: .settingsStore, name: "default",
                json: "replaced", updatedAt: now))
        #expect(try database.clientValues().map(\.json) == ["replaced", "org.example.B"])

        try database.deleteClientValues(user: UserID(1000), client: AppID("org.example.A"), kind: .settingsStore)
        #expect(try database.clientValues().map(\.clientID) == [AppID("org.example.B")])
    }
}
