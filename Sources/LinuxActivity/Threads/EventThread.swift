import Dispatch
import SystemPackage
import Synchronization

/// A thread that waits on descriptors, and how it stops: a stop flag its loop checks, a wake-up descriptor its loop
/// polls beside its own, and a wait for the loop to end. The focus sources, the notifier and the daemon's loop run on
/// one each.
public final class EventThread: Sendable {
    /// Polled by the loop beside its connection; `signal()` interrupts the loop's wait.
    public let wakeup: WakeupDescriptor
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// - Throws: the `Errno` of `pipe(2)` (`EMFILE` when out of descriptors).
    public init() throws(Errno) {
        wakeup = try WakeupDescriptor()
    }

    /// Whether `stop()` was called: the loop ends at its next check.
    public var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Runs `loop` on a new thread named `name`.
    public func start(name: String, _ loop: @escaping @Sendable () -> Void) {
        started.store(true, ordering: .releasing)
        DetachedThread.start(name: name) { [self] in
            loop()
            finished.signal()
        }
    }

    /// Asks the loop to end and wakes it, without waiting. Idempotent.
    public func requestStop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeup.signal()
    }

    /// Asks the loop to end, wakes it and waits until it has. Idempotent; does nothing for a thread never started.
    public func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing), started.load(ordering: .acquiring) else {
            return
        }
        wakeup.signal()
        finished.wait()
    }
}
