import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import Testing

extension KernelTests {
    @Suite struct FreezerTests {
        @Test func freezingHoldsBusyLoopsAgainstSigcontAndNewChildrenUntilThawed() throws {
            // Declared first so that it is removed last, once the processes in it are gone.
            let cgroup = try TestCgroup()
            defer { cgroup.remove() }
            let processes = TestProcesses()
            defer { processes.stopAll() }

            let loops = try (0..<3).map { _ in try processes.spawn() }
            for loop in loops { try cgroup.add(loop) }
            #expect(loops.allSatisfy { cgroup.freezer.cgroup(of: $0.pid) == cgroup.path })
            #expect(allMakeProgress(loops))

            let clock = ContinuousClock()
            let started = clock.now
            #expect(try cgroup.freezer.freeze(cgroup.path, timeout: .seconds(2)) == .settled)
            print("freeze of 3 busy loops settled after \(started.duration(to: clock.now))")
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == true)
            #expect(noneMakeProgress(loops))

            for loop in loops { Glibc.kill(loop.pid.rawValue, SIGCONT) }
            #expect(noneMakeProgress(loops))

            // Started inside the frozen cgroup: the kernel traps it on its way out of clone, before it can exec. It
            // spends a few microseconds of kernel time getting there (the cgroup keeps reporting `frozen 1`
            // meanwhile), so wait for its CPU time to settle, then check that it stays put and never became `sh`.
            let child = try processes.spawn(insideCgroupAt: cgroup.directory)
            #expect(cgroup.freezer.cgroup(of: child.pid) == cgroup.path)
            #expect(eventually { noneMakeProgress([child], over: .milliseconds(50)) })
            #expect(noneMakeProgress([child]))
            #expect(commandName(child) != "sh")

            #expect(try cgroup.freezer.thaw(cgroup.path, timeout: .seconds(2)) == .settled)
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == false)
            #expect(allMakeProgress(loops + [child]))
            #expect(eventually { commandName(child) == "sh" })
        }

        @Test func aCgroupThatNoLongerExistsIsGoneNotAnError() throws {
            let freezer = try Freezer()
            let missing = CgroupPath("/app-test-vanished-\(getpid()).scope")
            #expect(try freezer.freeze(missing, timeout: .seconds(1)) == .gone)
            #expect(try freezer.thaw(missing, timeout: .seconds(1)) == .gone)
            #expect(try freezer.isFrozen(missing) == nil)
        }

        @Test func freezeLatencyForFiftyProcesses() throws {
            // Declared first so that it is removed last, once the processes in it are gone.
            let cgroup = try TestCgroup()
            defer { cgroup.remove() }
            let processes = TestProcesses()
            defer { processes.stopAll() }
            for _ in 0..<50 { _ = try processes.spawn(["/bin/sleep", "1000"], insideCgroupAt: cgroup.directory) }

            let clock = ContinuousClock()
            var freezes: [Duration] = []
            var thaws: [Duration] = []
            for _ in 0..<5 {
                var started = clock.now
                #expect(try cgroup.freezer.freeze(cgroup.path, timeout: .seconds(2)) == .settled)
                freezes.append(started.duration(to: clock.now))
                started = clock.now
                #expect(try cgroup.freezer.thaw(cgroup.path, timeout: .seconds(2)) == .settled)
                thaws.append(started.duration(to: clock.now))
            }
            print("50 sleeping processes: freeze \(freezes.sorted()[2]) (median of 5), thaw \(thaws.sorted()[2])")
        }
    }
}
