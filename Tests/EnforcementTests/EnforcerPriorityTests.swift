import CLinux
import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import Testing

extension KernelTests {
    @Suite struct EnforcerPriorityTests {
        /// Runs `body` on a thread of its own, so that no shared test thread keeps the priority.
        func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
            let box = ResultBox<T>()
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                box.set(Result { try body() })
                done.signal()
            }
            thread.start()
            done.wait()
            return try box.get()
        }

        @Test(arguments: [EnforcerPriority.realTime(priority: 10), .nice(-10)])
        func theThreadIsRaisedAndItsChildrenAreNot(priority: EnforcerPriority) throws {
            let (threadPolicy, threadNice, child) = try onOwnThread {
                try priority.applyToCurrentThread()
                let policy = sched_getscheduler(0) & ~clinux_sched_reset_on_fork()
                errno = 0
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                let processes = TestProcesses()
                let child = try processes.spawn(["/bin/sleep", "1000"])
                return (policy, nice, child)
            }
            defer {
                Glibc.kill(child.pid.rawValue, SIGKILL)
                var status: Int32 = 0
                waitpid(child.pid.rawValue, &status, 0)
            }
            switch priority {
            case .realTime: #expect(threadPolicy == SCHED_RR)
            case .nice(let value): #expect(threadNice == value)
            }
            // /proc/PID/stat field 19 is nice, field 41 the policy.
            let fields = try String(contentsOfFile: "/proc/\(child.pid.rawValue)/stat", encoding: .utf8)
                .split(separator: ")").last!.split(separator: " ")
            #expect(fields[16] == "0")
            #expect(fields[38] == "\(SCHED_OTHER)")
        }
    }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Written once by the worker thread before the semaphore is signalled, read after waiting on it.
    private var result: Result<T, any Error>?
    func set(_ result: Result<T, any Error>) { self.result = result }
    func get() throws -> T { try result!.get() }
}
