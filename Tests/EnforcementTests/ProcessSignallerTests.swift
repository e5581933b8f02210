import Enforcement
import Glibc
import ScreenTimeModel
import Testing

extension KernelTests {
    @Suite struct ProcessSignallerTests {
        @Test func signalsByIntentReachTheProcess() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let signaller = ProcessSignaller()
            let loop = try processes.spawn()

            #expect(try signaller.send(.suspend, to: loop) == .delivered)
            #expect(eventually { schedulerState(loop) == "T" })
            #expect(try signaller.send(.resume, to: loop) == .delivered)
            #expect(eventually { schedulerState(loop) != "T" })
            #expect(signaller.openDescriptorCount == 1)
        }

        @Test func refusesAnIdentityWhoseStartTimeDoesNotMatch() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let signaller = ProcessSignaller()
            let loop = try processes.spawn()
            // The same pid with another start time: what a reused pid looks like.
            let impostor = ProcessIdentity(pid: loop.pid, startTime: loop.startTime + 1)

            #expect(try signaller.send(.suspend, to: impostor) == .gone)
            #expect(!signaller.isAlive(impostor))
            #expect(noneStopped(loop))
            #expect(signaller.openDescriptorCount == 0)
        }

        @Test func aProcessThatExitedIsGoneEvenBeforeItIsReaped() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let signaller = ProcessSignaller()
            let sleeper = try processes.spawn(["/bin/sleep", "1000"])
            #expect(signaller.isAlive(sleeper))
            #expect(try signaller.send(.kill, to: sleeper) == .delivered)
            // A zombie now: its pidfd reports the exit.
            #expect(eventually { !signaller.isAlive(sleeper) })
            #expect(try signaller.send(.terminate, to: sleeper) == .gone)
            #expect(eventually { processes.reapIfExited(sleeper) })
            #expect(try signaller.send(.terminate, to: sleeper) == .gone)
        }

        @Test func aProcessSeenAliveIsSignalledWithoutTheExitCheckAndAReapedOneIsStillGone() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let signaller = ProcessSignaller()
            let sleeper = try processes.spawn(["/bin/sleep", "1000"])
            #expect(try signaller.send(.suspend, to: sleeper, seenAlive: true) == .delivered)
            #expect(eventually { schedulerState(sleeper) == "T" })
            #expect(try signaller.send(.kill, to: sleeper, seenAlive: true) == .delivered)
            // A zombie, which the caller still believes alive: the kernel accepts the signal.
            #expect(eventually { !signaller.isAlive(sleeper) })
            #expect(try signaller.send(.suspend, to: sleeper, seenAlive: true) == .delivered)
            #expect(try signaller.send(.suspend, to: sleeper) == .gone)
            // Reaped: gone whatever the caller believes.
            #expect(eventually { processes.reapIfExited(sleeper) })
            #expect(try signaller.send(.suspend, to: sleeper, seenAlive: true) == .gone)
        }

        private func noneStopped(_ process: ProcessIdentity) -> Bool {
            // Give a wrongly delivered SIGSTOP time to show.
            usleep(100_000)
            return schedulerState(process) != "T"
        }
    }
}
