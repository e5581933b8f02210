import Foundation
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// The engine's snapshot is kept twice, in its own file and in the ledger: a restart resumes from the newer.
@Suite struct SnapshotFileTests {
    /// A snapshot the runtime made (five seconds of use), as the store writer saves it.
    static func blob() throws -> Data {
        var harness = DaemonRuntimeTests.Harness()
        try harness.load()
        let actions = harness.use(DaemonRuntimeTests.calculator, for: 5) + [harness.runtime.flush(at: harness.now)]
        return try #require(DaemonRuntimeTests.writes(actions).last { $0.snapshot != nil }?.snapshot?.blob)
    }

    /// Writes `blob` as the file's snapshot, modified at `fileTime`, and as the ledger's, saved at `ledgerTime`;
    /// returns where `load` took its snapshot from.
    static func source(fileTime: Date, ledgerTime: Date, in directory: ScratchDirectory) throws -> String? {
        let blob = try blob()
        let file = SnapshotFile(path: directory.path + "/engine-snapshot.json")
        try file.save(blob)
        try FileManager.default.setAttributes([.modificationDate: fileTime], ofItemAtPath: file.path)
        let ledger = directory.path + "/usage.sqlite"
        let database = try UsageDatabase.open(at: ledger)
        let record = EngineSnapshotRecord(scope: "user-1000", version: 1, blob: blob, savedAt: ledgerTime)
        try database.writer.write { db in try record.save(db) }
        return file.load(orFromDatabaseAt: ledger, scope: "user-1000")?.source
    }

    /// The file could not be replaced (a full disk) while the ledger went on: the ledger's is newer.
    @Test func theLedgersSnapshotWinsWhenItIsNewer() throws {
        let directory = try ScratchDirectory()
        let now = Date()
        let source = try Self.source(fileTime: now - 120, ledgerTime: now, in: directory)
        #expect(source == directory.path + "/usage.sqlite")
    }

    @Test func theFilesSnapshotWinsWhenItIsNewer() throws {
        let directory = try ScratchDirectory()
        let now = Date()
        let source = try Self.source(fileTime: now, ledgerTime: now - 120, in: directory)
        #expect(source == directory.path + "/engine-snapshot.json")
    }
}
