import Foundation
import Glibc
import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import Synchronization
import Testing

@testable import ScreenTimeDaemon

/// The queue between the bus thread and the engine loop: the loop answers for a bounded time, then ticks.
@Suite struct BusRequestQueueTests {
    /// Takes 30 ms for each answer, as a long report would.
    final class SlowHandler: BusRequestHandler {
        var answered = 0
        func answer(_ request: BusRequest, from caller: CallerProcess, at now: Now) -> Result<
            BusAnswer, ScreenTimeBusError
        > {
            usleep(30_000)
            answered += 1
            return .success(.nothing)
        }
    }

    @Test func aFloodOfCallsHoldsTheLoopForItsBudgetAndWakesItForTheRest() throws {
        let queue = BusRequestQueue()
        let wakeup = try WakeupDescriptor()
        queue.attachLoop(wakeup)
        let caller = try #require(
            CallerProcess(BusCredentials(user: UserID(getuid()), process: ProcessID(rawValue: getpid()))))
        let replies = Mutex(0)
        for _ in 0..<10 { queue.submit(.status, from: caller) { _ in replies.withLock { $0 += 1 } } }
        wakeup.drain()
        let handler = SlowHandler()
        queue.answerPending(with: handler, at: Clocks.now(), budget: .milliseconds(50))
        // At least one answer, then as many as 50 ms allow after it (two or three here), not the ten.
        #expect((1...4).contains(handler.answered), "\(handler.answered) answered")
        var readable = pollfd(fd: wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&readable, 1, 0) == 1, "the loop is woken again for the rest")
        for _ in 0..<10 where handler.answered < 10 {
            queue.answerPending(with: handler, at: Clocks.now(), budget: .milliseconds(50))
        }
        #expect(handler.answered == 10)
        #expect(replies.withLock { $0 } == 10)
    }
}
