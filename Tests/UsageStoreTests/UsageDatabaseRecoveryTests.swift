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

    @Test func twoFilesMovedAsideInOneSecondAreBothKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let now = Date()
        for garbage in ["first", "second"] {
            try writeFile(Array(garbage.utf8), at: directory.databasePath)
            _ = try UsageDatabase.openRecovering(at: directory.databasePath, now: now)
        }
        let kept = UsageDatabase.movedAsideFiles(of: directory.databasePath)
        #expect(kept.count == 2)
        #expect(
            Set(kept.compactMap { FileManager.default.contents(atPath: $0) }) == [
                Data("first".utf8), Data("second".utf8),
            ])
    }

    @Test func garbageIsMovedAside() throws {
        try expectMovedAside(
            Array("this is not a database at all, just some text. ".utf8) + Array(repeating: 7, count: 4000),
            because: "not an SQLite")
    }

    @Test func aTruncatedLedgerIsMovedAside() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try UsageDatabase.open(at: directory.databasePath)
        _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        let bytes = try #require(FileManager.default.contents(atPath: directory.databasePath))
        #expect(bytes.count > 8192)
        try expectMovedAside(Array(bytes.prefix(bytes.count / 2)), because: "truncated")
    }

    /// A checkpoint cut short (a crash, a power cut) writes page 1, with the new page count, before the file has
    /// grown to it; the write-ahead log still holds every page, and SQLite reads it whole.
    @Test func aLedgerShorterThanItsHeaderSaysIsKeptWhileItsLogHoldsThePages() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let live = directory.url.path + "/live.sqlite"
        let database = try UsageDatabase.open(at: live)
        _ = try database.writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try database.writer.write { db in
            for index in 0..<2000 {
                try db.execute(
                    sql: "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES (?, ?, 1)",
                    arguments: ["store-\(index)", String(repeating: "x", count: 100)])
            }
        }
        // The files as a crash leaves them: the log not checkpointed, the database's header saying it has more pages
        // than it has (as the checkpoint's first write makes it).
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: live + suffix, toPath: directory.databasePath + suffix)
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: directory.databasePath))
        let header = try #require(try handle.read(upToCount: 100))
        var bytes = Array(header)
        let size = try #require(FileManager.default.attributesOfItem(atPath: directory.databasePath)[.size] as? Int)
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let claimed = UInt32(size / pageSize + 40)
        for (offset, value) in [(28, claimed), (24, UInt32(7)), (92, UInt32(7))] {
            for byte in 0..<4 { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
        }
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
        #expect(
            try #require(FileManager.default.attributesOfItem(atPath: directory.databasePath + "-wal")[.size] as? Int)
                > 0)
        let opened = try UsageDatabase.openRecovering(at: directory.databasePath)
        #expect(opened.movedAside == nil)
        #expect(
            try opened.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM settingsStore") }
                == 2000)
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
        #expect(
            try opened.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM settingsStore") }
                == 1)
        #expect(UsageDatabase.movedAsideFiles(of: directory.databasePath).isEmpty)
    }

    @Test func aFolderThatCannotBeWrittenIsAnErrorToRetryNotALostFile() throws {
        guard getuid() != 0 else {
            // Root writes everywhere; the same refusal is made by a read-only mount, which a test can't make here.
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            #expect(throws: (any Error).self) {
                try UsageDatabase.openRecovering(at: directory.databasePath + "/missing/usage.sqlite")
            }
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
