import Foundation
import GRDB
import Testing

@testable import UsageStore

/// A damaged ledger is moved aside, never deleted, and a fresh one started; a healthy one is kept.
@Suite struct UsageDatabaseRecoveryTests {
    func writeFile(_ bytes: [UInt8], at path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func expectMovedAside(_ bytes: [UInt8], because reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try writeFile(bytes, at: directory.databasePath)
        var why: String?
        let opened = try UsageDatabase.openRecovering(at: directory.databasePath) { _, reason in why = reason }
        let aside = try #require(opened.movedAside)
        #expect(why?.contains(reason) == true)
        #expect(FileManager.default.contents(atPath: aside) == Data(bytes))
        #expect(UsageDatabase.movedAsideFiles(of: directory.databasePath) == [aside])
        #expect(try opened.database.appliedMigrations().contains("v1-usage-ledger"))
    }

    @Test func anEmptyFileIsMovedAsideNotTakenForANewLedger() throws {
        try expectMovedAside([], because: "empty")
    }

    @Test func garbageIsMovedAside() throws {
        try expectMovedAside(Array("this is not a database at all, just some text. ".utf8) + Array(repeating: 7, count: 4000), because: "not an SQLite")
    }

    @Test func aTruncatedLedgerIsMovedAside() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try UsageDatabase.open(at: directory.databasePath)
        try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        let bytes = try #require(FileManager.default.contents(atPath: directory.databasePath))
        #expect(bytes.count > 8192)
        try expectMovedAside(Array(bytes.prefix(bytes.count / 2)), because: "truncated")
    }

    @Test func aHealthyLedgerIsKeptWithItsRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try UsageDatabase.open(at: directory.databasePath)
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES ('a', '{}', 1)")
        }
        let opened = try UsageDatabase.openRecovering(at: directory.databasePath)
        #expect(opened.movedAside == nil)
        #expect(try opened.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM settingsStore") } == 1)
        #expect(UsageDatabase.movedAsideFiles(of: directory.databasePath).isEmpty)
    }

    @Test func aFolderThatCannotBeWrittenIsAnErrorToRetryNotALostFile() throws {
        guard getuid() != 0 else {
            // Root writes everywhere; the same refusal is made by a read-only mount, which a test can't make here.
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            #expect(throws: (any Error).self) { try UsageDatabase.openRecovering(at: directory.databasePath + "/missing/usage.sqlite") }
            return
        }
        let directory = try TemporaryDirectory()
        defer {
            chmod(directory.url.path, 0o700)
            directory.remove()
        }
        chmod(directory.url.path, 0o500)
        #expect(throws: (any Error).self) { try UsageDatabase.openRecovering(at: directory.databasePath) }
    }

    @Test func aSnapshotIsReadWithoutWritingTheLedger() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try UsageDatabase.open(at: directory.databasePath)
        let record = EngineSnapshotRecord(scope: "user-1", version: 1, blob: Data("{}".utf8), savedAt: Date())
        try database.writer.write { db in try record.save(db) }
        #expect(UsageDatabase.snapshot(inFileAt: directory.databasePath, scope: "user-1")?.blob == Data("{}".utf8))
        #expect(UsageDatabase.snapshot(inFileAt: directory.databasePath, scope: "user-2") == nil)
        #expect(UsageDatabase.snapshot(inFileAt: directory.databasePath + ".missing", scope: "user-1") == nil)
    }
}
