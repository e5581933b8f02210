import Dispatch
import Synchronization

/// The thread a focus source follows its compositor on, and how it stops: a stop flag its loop checks, a wake-up
/// descriptor its loop polls beside its connection, and a wait for the loop to end.
final class EventThread: Sendable {
    /// Polled by the loop beside its connection; `signal()` interrupts the loop's wait.
    let wakeup: WakeupDescriptor
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init() throws(FocusSourceError) {
        wakeup = try WakeupDescriptor()
    }

    /// Whether `stop()` was called: the loop ends at its next check.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Runs `loop` on a new thread named `name`.
    func start(name: String, _ loop: @escaping @Sendable () -> Void) {
        started.store(true, ordering: .releasing)
        FocusThread.start(name: name) { [self] in
            loop()
            finished.signal()
        }
    }

    /// Asks the loop to end, wakes it and waits until it has. Idempotent; does nothing for a thread never started.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing), started.load(ordering: .acquiring) else {
            return
        }
        wakeup.signal()
        finished.wait()
    }
}
