import Foundation
import Logging
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// The store writer as the daemon runs it, on a real SQLite file.
@Suite struct StoreWriterTests {
    /// The loop asks for the store's health at every tick: a write waiting for the ledger (on a slow disk, or for
    /// another writer: a report making its rollups) doesn't make the tick wait with it.
    @Test func healthIsReadWhileAWriteWaitsForTheLedger() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/usage.sqlite"
        let writer = StoreWriter(
            databasePath: path, snapshotFile: SnapshotFile(path: directory.path + "/engine-snapshot.json"),
            bootID: "test", logger: Logger(label: "screentimed-test"))
        let running = Task.detached { await writer.run() }
        defer { writer.finish() }
        let deadline = ContinuousClock.now + .seconds(10)
        while !writer.health.isOpen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(writer.health.isOpen)
        // Another writer holds the ledger for two seconds.
        let other = try UsageDatabase.open(at: path)
        let released = DispatchSemaphore(value: 0)
        // On a thread of its own: a task sleeping in a transaction would hold one of the few threads the writer's
        // task runs on.
        Thread.detachNewThread {
            try? other.writer.write { db in
                try db.execute(
                    sql: "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES ('x', '{}', 1)")
                Thread.sleep(forTimeInterval: 2)
            }
            released.signal()
        }
        try await Task.sleep(for: .milliseconds(300))
        var batch = StoreWriter.Batch()
        batch.snapshot = EngineSnapshotRecord(scope: "user-1", version: 1, blob: Data("{}".utf8), savedAt: Date())
        writer.submit(batch)
        // The batch's write now waits for the ledger, under the writer's lock.
        try await Task.sleep(for: .milliseconds(300))
        let asked = ContinuousClock.now
        _ = writer.health
        let answeredIn = asked.duration(to: .now)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                released.wait()
                done.resume()
            }
        }
        #expect(answeredIn < .milliseconds(700), "health waited \(answeredIn) for the write")
        // Outside a service group nothing ends the writer's wait for a graceful shutdown: cancelled.
        writer.finish()
        running.cancel()
        await running.value
    }
}
