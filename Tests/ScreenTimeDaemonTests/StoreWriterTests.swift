import Foundation
import Logging
import Synchronization
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
        let released = try await holdLedger(at: path, seconds: 2)
        var batch = StoreWriter.Batch()
        batch.snapshot = EngineSnapshotRecord(scope: "user-1", version: 1, blob: Data("{}".utf8), savedAt: Date())
        writer.submit(batch)
        // The batch's write now waits for the ledger, under the writer's lock.
        try await Task.sleep(for: .milliseconds(300))
        let asked = ContinuousClock.now
        _ = writer.health
        let answeredIn = asked.duration(to: .now)
        await wait(for: released)
        #expect(answeredIn < .milliseconds(700), "health waited \(answeredIn) for the write")
        // Outside a service group nothing ends the writer's wait for a graceful shutdown: cancelled.
        writer.finish()
        running.cancel()
        await running.value
    }

    /// A snapshot that only counted more use goes to the ledger at each flush but to the snapshot file (an `fsync`)
    /// at most once a minute; one the engine asked to be saved goes to both at once, and while the ledger can't be
    /// written (another writer holds it past the busy timeout) each goes to the file, its only copy on disk.
    @Test func routineSnapshotsGoToTheFileOnceAMinuteWhileTheLedgerHasThem() async throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/usage.sqlite"
        let filePath = directory.path + "/engine-snapshot.json"
        let writer = StoreWriter(
            databasePath: path, snapshotFile: SnapshotFile(path: filePath), bootID: "test",
            logger: Logger(label: "screentimed-test"))
        let running = Task.detached { await writer.run() }
        defer { writer.finish() }
        func file() -> String? {
            FileManager.default.contents(atPath: filePath).map { String(decoding: $0, as: UTF8.self) }
        }
        func ledger() -> String? {
            UsageDatabase.snapshot(inFileAt: path, scope: "user-1").map { String(decoding: $0.blob, as: UTF8.self) }
        }
        func submit(_ text: String, toFileNow: Bool) {
            var batch = StoreWriter.Batch()
            batch.snapshot = EngineSnapshotRecord(scope: "user-1", version: 1, blob: Data(text.utf8), savedAt: Date())
            batch.snapshotToFileNow = toFileNow
            writer.submit(batch)
        }
        // Generous: in a full run the other suites' synchronous tests can hold the two threads the writer's task and
        // this one run on for tens of seconds.
        func until(_ condition: () -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(90)
            while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            return condition()
        }
        // The writer replaces the file after the ledger's commit: each is waited for.
        submit("{\"n\":1}", toFileNow: false)
        #expect(try await until { ledger() == "{\"n\":1}" && file() == "{\"n\":1}" }, "the first goes to both")
        // Batches are written in order: once the ledger has the second of two routine snapshots, the first one's
        // turn, file included, is over.
        submit("{\"n\":2}", toFileNow: false)
        submit("{\"n\":2.5}", toFileNow: false)
        #expect(try await until { ledger() == "{\"n\":2.5}" })
        #expect(file() == "{\"n\":1}", "a routine one a moment later doesn't")
        submit("{\"n\":3}", toFileNow: true)
        #expect(try await until { ledger() == "{\"n\":3}" && file() == "{\"n\":3}" })

        // Another writer holds the ledger past the writer's 5 s busy timeout, until the file is looked at: the routine
        // snapshot can't reach the ledger, however late the writer's task comes to it.
        let letGo = DispatchSemaphore(value: 0)
        let released = try await holdLedger(at: path, seconds: 120, letGo: letGo)
        submit("{\"n\":4}", toFileNow: false)
        #expect(try await until { file() == "{\"n\":4}" }, "with the ledger not written, the file has it")
        #expect(writer.health.fault != nil)
        letGo.signal()
        await wait(for: released)
        writer.finish()
        running.cancel()
        await running.value
    }

    /// Has another writer hold the ledger at `path` (a write transaction) for `seconds`, or until `letGo` is
    /// signalled, on a thread of its own (a task sleeping in a transaction would hold one of the few threads the
    /// writer's task runs on); returns once it holds it, with what is signalled when it lets go. A hold that can't be
    /// taken (the writer busy past the timeout) throws, so the test fails saying so instead of going on unheld.
    func holdLedger(
        at path: String, seconds: Int, letGo: DispatchSemaphore = DispatchSemaphore(value: 0)
    ) async throws -> DispatchSemaphore {
        let other = try UsageDatabase.open(at: path)
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Thread.detachNewThread {
            do {
                try other.writer.write { db in
                    try db.execute(
                        sql: "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES ('x', '{}', 1)")
                    holding.signal()
                    _ = letGo.wait(timeout: .now() + .seconds(seconds))
                }
            } catch {
                failure.withLock { $0 = error }
                holding.signal()
            }
            released.signal()
        }
        await wait(for: holding)
        if let error = failure.withLock({ $0 }) { throw error }
        return released
    }

    /// Waits for `semaphore` without blocking a thread of the concurrency pool.
    func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                semaphore.wait()
                done.resume()
            }
        }
    }
}
