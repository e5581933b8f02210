import Foundation
import Glibc
import ScreenTimeModel
import SystemPackage
import Testing

@testable import Enforcement

extension KernelTests {
    /// Real processes: whether a process held by `SIGSTOP` has run since the last look, from its `schedstat`.
    @Suite struct RunTimeWatchTests {
        @Test func aStoppedProcessHasNotRunAndAResumedOneHasEvenWhenItOnlySleeps() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            // A sleeping process burns no CPU once resumed, but it runs to take SIGCONT and go back to sleep.
            let sleeper = try processes.spawn(["/bin/sleep", "1000"])
            Glibc.kill(sleeper.pid.rawValue, SIGSTOP)
            #expect(eventually { schedulerState(sleeper) == "T" })
            let watch = RunTimeWatch()
            #expect(!watch.hasRun(sleeper))  // first look: stopped now
            #expect(!watch.hasRun(sleeper))  // nothing since
            Glibc.kill(sleeper.pid.rawValue, SIGCONT)
            #expect(eventually { schedulerState(sleeper) != "T" })
            #expect(eventually { watch.hasRun(sleeper) })
            // Stopped again: the stop itself made it run; the next look takes a new baseline instead of counting it.
            watch.rebaseline(sleeper)
            Glibc.kill(sleeper.pid.rawValue, SIGSTOP)
            #expect(eventually { schedulerState(sleeper) == "T" })
            #expect(!watch.hasRun(sleeper))
            #expect(!watch.hasRun(sleeper))
        }

        @Test func aProcessWhoseMainThreadExitedIsWatchedThroughAThreadThatRuns() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            var template = Array("/tmp/screentime-leaderless-XXXXXX".utf8CString)
            let directory = String(cString: try #require(mkdtemp(&template)))
            defer { _ = try? FileManager.default.removeItem(atPath: directory) }
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../Fixtures/leaderless.c").standardized.path
            let compiler = try processes.spawn(["/usr/bin/gcc", "-O1", "-pthread", "-o", directory + "/game", source])
            try #require(eventually(within: .seconds(60)) { processes.reapIfExited(compiler) }, "gcc did not finish")
            let game = try processes.spawn([directory + "/game"])
            // Its main thread exits after 0.3 s; the other runs on (in `pause()`).
            #expect(eventually { schedulerState(game) == "Z" })
            let thread = try #require(
                try FileManager.default.contentsOfDirectory(atPath: "/proc/\(game.pid.rawValue)/task")
                    .compactMap(Int32.init).first { $0 != game.pid.rawValue })
            func threadState() -> Character? {
                ProcessStatus.read(FilePath("/proc/\(game.pid.rawValue)/task/\(thread)/stat"))?.state
            }
            Glibc.kill(game.pid.rawValue, SIGSTOP)
            #expect(eventually { threadState() == "T" })
            let watch = RunTimeWatch()
            #expect(!watch.hasRun(game))  // first look: stopped now
            #expect(!watch.hasRun(game))
            Glibc.kill(game.pid.rawValue, SIGCONT)
            #expect(eventually { threadState() != "T" })
            #expect(eventually { watch.hasRun(game) }, "a resume of its running thread was missed")
        }

        /// Uninterruptible sleep can't be had on demand: a procfs of two files stands in for it.
        @Test func aProcessInUninterruptibleSleepHasNotRunUntilItsRunTimeGrows() throws {
            var template = Array("/tmp/screentime-proc-XXXXXX".utf8CString)
            let root = String(cString: try #require(mkdtemp(&template)))
            defer { _ = try? FileManager.default.removeItem(atPath: root) }
            mkdir(root + "/4242", 0o755)
            let fields = (4...52).map { $0 == 22 ? "777" : "0" }.joined(separator: " ")
            try "4242 (game) D \(fields)\n".write(toFile: root + "/4242/stat", atomically: true, encoding: .utf8)
            try "5000 0 1\n".write(toFile: root + "/4242/schedstat", atomically: true, encoding: .utf8)
            let process = ProcessIdentity(pid: ProcessID(4242), startTime: 777)
            let watch = RunTimeWatch(procRoot: FilePath(root))
            #expect(!watch.hasRun(process))  // first look: in D, the SIGSTOP still pending
            #expect(!watch.hasRun(process))
            try "9000 0 2\n".write(toFile: root + "/4242/schedstat", atomically: false, encoding: .utf8)
            #expect(watch.hasRun(process))
        }

        @Test func aProcessGoneOrReplacedHasNotRun() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let busy = try processes.spawn()
            let watch = RunTimeWatch()
            #expect(watch.hasRun(busy))  // first look: running
            processes.stopAll()
            #expect(!watch.hasRun(busy))
            // Another start time under the same pid is another process: not this one running.
            let other = try processes.spawn()
            #expect(!watch.hasRun(ProcessIdentity(pid: other.pid, startTime: other.startTime &+ 1)))
        }
    }
}
