import Logging
import ServiceLifecycle
import Synchronization
import UsageStore

/// The usage store's one writer, as a service: the engine loop hands it what was counted (and, when use was counted,
/// the engine's snapshot) every flush interval, and it writes each batch in one transaction on its own task, so that a
/// slow disk (`fdatasync`) never delays a tick or a shield. Batches that fail stay pending and go with the next one.
///
/// It writes until the loop has handed over its last batch (`finish()`), then ends at its turn in the graceful
/// shutdown: it is the group's first service, so the last to stop.
public final class StoreWriter: Service, Sendable {
    /// What one flush writes.
    public struct Batch: Sendable {
        public var intervals: [UsageInterval] = []
        public var pickups: [Pickup] = []
        public var snapshot: EngineSnapshotRecord?

        public var isEmpty: Bool { intervals.isEmpty && pickups.isEmpty && snapshot == nil }
    }

    private let recorder: Mutex<UsageRecorder>
    private let batches: AsyncStream<Batch>
    private let continuation: AsyncStream<Batch>.Continuation
    private let logger: Logger

    public init(recorder: UsageRecorder, logger: Logger) {
        self.recorder = Mutex(recorder)
        self.logger = logger
        (batches, continuation) = AsyncStream.makeStream()
    }

    /// Queues `batch` for writing; returns at once.
    public func submit(_ batch: Batch) {
        guard !batch.isEmpty else { return }
        continuation.yield(batch)
    }

    /// No batch will follow: the service writes what is queued and waits for its turn to stop.
    public func finish() { continuation.finish() }

    public func run() async {
        for await batch in batches { write(batch) }
        try? await gracefulShutdown()
    }

    private func write(_ batch: Batch) {
        recorder.withLock { recorder in
            for interval in batch.intervals { recorder.record(interval) }
            for pickup in batch.pickups { recorder.record(pickup) }
            do {
                try recorder.flush(snapshot: batch.snapshot)
            } catch {
                logger.error(
                    "could not write the usage ledger; kept for the next flush",
                    metadata: ["error": "\(error)", "pending": "\(recorder.pendingCount)"])
            }
        }
    }
}
