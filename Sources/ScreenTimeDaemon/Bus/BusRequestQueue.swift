import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine
import Synchronization

/// What passes between the bus thread and the engine loop's thread: requests one way (each with the completion that
/// queues its reply), signals and the published state the other. Each side wakes the other through the other's
/// wake-up descriptor, so neither polls.
public final class BusRequestQueue: Sendable {
    /// Runs on the loop's thread with the answer; queues the reply for the bus thread.
    public typealias Completion = @Sendable (Result<BusAnswer, ScreenTimeBusError>) -> Void

    private struct Pending: Sendable {
        var request: BusRequest
        var caller: CallerProcess
        var completion: Completion
    }

    private let pending = Mutex<[Pending]>([])
    private let signals = Mutex<[BusSignal]>([])
    private let published = Mutex(DaemonBusState())
    private let loopWakeup = Mutex<WakeupDescriptor?>(nil)
    private let serverWakeup = Mutex<WakeupDescriptor?>(nil)

    /// An empty queue; requests wait until a loop attaches.
    public init() {}

    /// The engine loop's wake-up: requests submitted from now on wake the loop.
    public func attachLoop(_ wakeup: WakeupDescriptor?) {
        loopWakeup.withLock { $0 = wakeup }
        if wakeup != nil, !pending.withLock({ $0.isEmpty }) { wakeup?.signal() }
    }

    /// Whether an engine loop is attached and answering requests.
    public var isLoopAttached: Bool { loopWakeup.withLock { $0 != nil } }

    /// The bus thread's wake-up: signals queued from now on wake it.
    public func attachServer(_ wakeup: WakeupDescriptor?) {
        serverWakeup.withLock { $0 = wakeup }
    }

    /// Queues `request` from `caller` for the loop, and wakes the loop. `completion` runs on the loop's thread.
    public func submit(_ request: BusRequest, from caller: CallerProcess, completion: @escaping Completion) {
        pending.withLock { $0.append(Pending(request: request, caller: caller, completion: completion)) }
        wakeLoop()
    }

    /// Wakes the loop (if attached) to answer what is queued: when something it waited for has come.
    public func wakeLoop() {
        loopWakeup.withLock { $0?.signal() }
    }

    /// Answers the queued requests with `handler`, in order, for at most `budget`; on the loop's thread. What is
    /// left waits for the next call (the loop is woken again at once): a flood of calls delays other calls, never the
    /// loop's ticks. Cheap when none is queued.
    public func answerPending(
        with handler: some BusRequestHandler, at now: Now, budget: Duration = .milliseconds(50)
    ) {
        var deadline: ContinuousClock.Instant?
        while let request = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            request.completion(handler.answer(request.request, from: request.caller, at: now))
            let clock = ContinuousClock.now
            deadline = deadline ?? clock + budget
            if let deadline, clock >= deadline, !pending.withLock({ $0.isEmpty }) {
                loopWakeup.withLock { $0?.signal() }
                return
            }
        }
    }

    /// Refuses every queued request with `error` (the loop has stopped: nobody will answer them).
    public func refusePending(_ error: ScreenTimeBusError) {
        let requests = pending.withLock { queued -> [Pending] in
            defer { queued = [] }
            return queued
        }
        for request in requests { request.completion(.failure(error)) }
    }

    /// Queues a signal for the bus thread and wakes it.
    public func emit(_ signal: BusSignal) {
        signals.withLock { $0.append(signal) }
        serverWakeup.withLock { $0?.signal() }
    }

    /// The signals queued since the last call; on the bus thread.
    public func takeSignals() -> [BusSignal] {
        signals.withLock { queued in
            guard !queued.isEmpty else { return [] }
            defer { queued = [] }
            return queued
        }
    }

    /// The state the loop published last.
    public var state: DaemonBusState { published.withLock { $0 } }

    /// Publishes `state`; when a property that announces its changes differs, queues `PropertiesChanged`.
    public func publish(_ state: DaemonBusState) {
        let changed = published.withLock { current -> Bool in
            guard current != state else { return false }
            defer { current = state }
            return current.policyError != state.policyError || current.shieldedUsers != state.shieldedUsers
                || current.storeMovedAside != state.storeMovedAside
        }
        if changed { emit(.daemonPropertiesChanged) }
    }
}
