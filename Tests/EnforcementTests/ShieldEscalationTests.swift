import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import SystemPackage
import Testing

/// Processes held by `SIGSTOP` alone: rechecks, resumes counted, escalation to termination; and processes moved into
/// a scope of their own.
@Suite struct ShieldEscalationTests {
    let game = AppID("org.example.Game")
    let loose = ProcessIdentity(pid: ProcessID(200), startTime: 2)
    let shared = ProcessIdentity(pid: ProcessID(300), startTime: 3)
    let scope = CgroupPath("/user.slice/user-1000.slice/user@1000.service/app.slice/app-screentime-game-300.scope")
    let start = ContinuousClock.now

    func record(_ machine: inout ShieldStateMachine, _ actions: [EnforcementAction], _ result: ActionResult = .done) {
        for action in actions { machine.record(result, of: action) }
    }

    @Test func aRecheckStopsAResumedProcessAgainUntilItWasResumedTooOften() {
        var machine = ShieldStateMachine()
        record(&machine, machine.tick(desired: [game: .freeze], observed: [game: [ObservedProcess(loose)]], at: start))
        #expect(machine.stoppedUnderShield == [loose])
        for resume in 1...ShieldStateMachine.resumeLimit {
            let actions = machine.recheck(running: [loose], at: start + .milliseconds(100 * resume))
            #expect(actions == [.signal(.suspend, loose, app: game)])
            record(&machine, actions)
        }
        let escalated = machine.recheck(running: [loose], at: start + .seconds(1))
        #expect(escalated == [.signal(.terminate, loose, app: game)])
        record(&machine, escalated)
        #expect(machine.stoppedUnderShield.isEmpty)
        // Still shielded: the next tick neither stops nor frees it, and kills it once the grace has passed.
        let next = machine.tick(
            desired: [game: .freeze], observed: [game: [ObservedProcess(loose)]], at: start + .milliseconds(1500))
        #expect(next.isEmpty)
        let later = machine.tick(
            desired: [game: .freeze], observed: [game: [ObservedProcess(loose)]], at: start + .seconds(3))
        #expect(later == [.signal(.kill, loose, app: game)])
    }

    @Test func resumesOlderThanTheWindowDoNotCount() {
        var machine = ShieldStateMachine()
        record(&machine, machine.tick(desired: [game: .freeze], observed: [game: [ObservedProcess(loose)]], at: start))
        for resume in 0..<20 {
            let actions = machine.recheck(running: [loose], at: start + .seconds(3 * resume))
            #expect(actions == [.signal(.suspend, loose, app: game)])
            record(&machine, actions)
        }
    }

    @Test func aProcessSharingTheManagersCgroupIsConfinedThenItsScopeFrozen() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(shared, confinable: true)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        #expect(first == [.confine(shared, app: game)])
        machine.record(.confined(scope), of: first[0])
        #expect(machine.held.apps == [.init(app: game, frozen: [scope])])
        #expect(machine.stoppedUnderShield.isEmpty)
        // The daemon reads the process's cgroup again: in the scope now.
        let inScope = [game: [ObservedProcess(shared, ownCgroup: scope)]]
        let second = machine.tick(desired: [game: .freeze], observed: inScope, at: start + .seconds(1))
        #expect(second == [.freeze(scope, app: game)])
        let released = machine.tick(desired: [:], observed: inScope, at: start + .seconds(2))
        #expect(released == [.thaw(scope, app: game)])
    }

    /// A confined process found outside its scope (its owner moved it back into a cgroup of their tree, which thawed
    /// it) is moved again, not left running while the empty scope is frozen tick after tick.
    @Test func aConfinedProcessMovedOutOfItsScopeIsConfinedAgain() {
        var machine = ShieldStateMachine()
        let shared = [game: [ObservedProcess(self.shared, confinable: true)]]
        let first = machine.tick(desired: [game: .freeze], observed: shared, at: start)
        machine.record(.confined(scope), of: first[0])
        let inScope = [game: [ObservedProcess(self.shared, ownCgroup: scope)]]
        record(&machine, machine.tick(desired: [game: .freeze], observed: inScope, at: start + .seconds(1)))
        let movedOut = machine.tick(desired: [game: .freeze], observed: shared, at: start + .seconds(2))
        #expect(movedOut == [.freeze(scope, app: game), .confine(self.shared, app: game)])
    }

    @Test func aProcessThatCannotBeConfinedIsStoppedInstead() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(shared, confinable: true)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        machine.record(.failed(EnforcementError(.confineFailed, "refused")), of: first[0])
        // The enforcer stopped it when the move failed: it is held (and rechecked) from then on.
        #expect(machine.trackedProcesses.contains(shared))
        let second = machine.tick(desired: [game: .freeze], observed: observed, at: start + .seconds(1))
        #expect(second == [.signal(.suspend, shared, app: game)])
    }

    /// A move that failed (the manager busy, its bus restarting) is tried again after `confineRetry`; the process is
    /// stopped meanwhile.
    @Test func aFailedMoveIsTriedAgainLater() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(shared, confinable: true)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        machine.record(.failed(EnforcementError(.confineFailed, "timed out")), of: first[0])
        #expect(machine.waitsOnTime)
        let soon = machine.tick(desired: [game: .freeze], observed: observed, at: start + .seconds(1))
        #expect(soon == [.signal(.suspend, shared, app: game)])
        let later = machine.tick(
            desired: [game: .freeze], observed: observed, at: start + ShieldStateMachine.confineRetry)
        #expect(later == [.confine(shared, app: game), .signal(.suspend, shared, app: game)])
        // Gone before another try: nothing is kept of it, and nothing waits on time.
        machine.record(.failed(EnforcementError(.confineFailed, "timed out")), of: later[0])
        _ = machine.tick(desired: [game: .freeze], observed: [:], at: start + ShieldStateMachine.confineRetry * 2)
        #expect(!machine.waitsOnTime)
    }

    /// Stopped when a move failed, moved by a later try: its frozen scope holds it, and it is resumed in there, so
    /// that its owner's `SIGCONT` (closing its terminal sends one) is no resume to count toward termination, and a
    /// thaw lets it run.
    @Test func aStoppedProcessMovedLaterIsResumedInsideItsFrozenScope() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(shared, confinable: true)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        machine.record(.failed(EnforcementError(.confineFailed, "timed out")), of: first[0])
        let retry = machine.tick(
            desired: [game: .freeze], observed: observed, at: start + ShieldStateMachine.confineRetry)
        machine.record(.confined(scope), of: retry[0])
        record(&machine, Array(retry.dropFirst()))
        let inScope = [game: [ObservedProcess(shared, ownCgroup: scope)]]
        let next = machine.tick(
            desired: [game: .freeze], observed: inScope, at: start + ShieldStateMachine.confineRetry + .seconds(1))
        #expect(next == [.freeze(scope, app: game), .signal(.resume, shared, app: game)])
        record(&machine, next)
        #expect(machine.stoppedUnderShield.isEmpty)
        #expect(machine.held.apps == [.init(app: game, frozen: [scope])])
        // Moved at last: no later tick waits on time (a retry), so the enforcer's steady state applies again.
        #expect(!machine.waitsOnTime)
    }

    @Test func aSessionScopeProcessIsNeverConfinable() {
        #expect(!ObservedProcess(shared, ownCgroup: scope, confinable: true).confinable)
    }
}

extension KernelTests {
    /// Real processes: a `SIGCONT` loop against a shield held by `SIGSTOP`.
    @Suite final class StoppedProcessRecheckTests {
        let game = AppID("org.example.Game")
        /// The enforcer's state file, in the temporary folder; emptied (removed) when the test ends.
        let stateFile = StateFile(path: FilePath(NSTemporaryDirectory() + "enforcement-\(getpid())-\(UUID()).json"))

        deinit { try? stateFile.save(HeldResources()) }

        @Test func aResumedProcessIsStoppedAgainAndTerminatedWhenResumedTooOften() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let enforcer = Enforcer(stateFile: stateFile, freezer: nil)
            let clock = ContinuousClock()
            let victim = try processes.spawn()
            _ = enforcer.apply(desired: [game: .freeze], observed: [game: [ObservedProcess(victim)]], at: clock.now)
            #expect(eventually { schedulerState(victim) == "T" })
            #expect(enforcer.holdsStoppedProcesses)
            // Nothing resumed: a recheck does nothing.
            #expect(enforcer.recheckStopped(at: clock.now).entries.isEmpty)
            // A resumed process is found by a recheck once it has run (it may wait on a busy machine's run queue
            // first): rechecks until one acts, as the daemon's every 100 ms.
            func recheckUntilActed() -> EnforcementReport {
                var report = EnforcementReport()
                _ = eventually {
                    report = enforcer.recheckStopped(at: clock.now)
                    return !report.entries.isEmpty
                }
                return report
            }
            for _ in 1...ShieldStateMachine.resumeLimit {
                Glibc.kill(victim.pid.rawValue, SIGCONT)
                #expect(recheckUntilActed().applied == [.signal(.suspend, victim, app: game)])
                #expect(eventually { schedulerState(victim) == "T" })
                // Stopping it made it run: that is not another resume.
                #expect(enforcer.recheckStopped(at: clock.now).entries.isEmpty)
            }
            Glibc.kill(victim.pid.rawValue, SIGCONT)
            #expect(recheckUntilActed().escalated.map(\.process) == [victim])
            #expect(eventually { processes.reapIfExited(victim) })
        }

        /// An escalated process that ignores `SIGTERM` gets `SIGKILL` from the tick after its grace, although the
        /// ticks before it (within the grace) asked the same of a shield that freezes: those are not taken as
        /// the steady state.
        @Test func anEscalatedProcessThatIgnoresTerminateIsKilledByALaterTick() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let enforcer = Enforcer(stateFile: stateFile, freezer: nil)
            let clock = ContinuousClock()
            let victim = try processes.spawn(TestProcesses.ignoresTerminate)
            #expect(eventually { ignores(victim, signal: SIGTERM) })
            let desired: [AppID: ShieldMode] = [game: .freeze]
            let observed = [game: [ObservedProcess(victim)]]
            _ = enforcer.apply(desired: desired, observed: observed, at: clock.now)
            #expect(eventually { schedulerState(victim) == "T" })
            for _ in 1...ShieldStateMachine.resumeLimit {
                Glibc.kill(victim.pid.rawValue, SIGCONT)
                #expect(eventually { !enforcer.recheckStopped(at: clock.now).entries.isEmpty })
                #expect(eventually { schedulerState(victim) == "T" })
                #expect(enforcer.recheckStopped(at: clock.now).entries.isEmpty)
            }
            Glibc.kill(victim.pid.rawValue, SIGCONT)
            var escalatedAt: ContinuousClock.Instant?
            _ = eventually {
                let report = enforcer.recheckStopped(at: clock.now)
                if report.escalated.map(\.process) == [victim] { escalatedAt = clock.now }
                return !report.entries.isEmpty
            }
            let start = try #require(escalatedAt)
            // Ticks within the grace: it lives on (SIGTERM ignored) and is neither stopped nor killed yet.
            _ = enforcer.apply(desired: desired, observed: observed, at: start + .milliseconds(100))
            _ = enforcer.apply(desired: desired, observed: observed, at: start + .milliseconds(200))
            #expect(!processes.reapIfExited(victim))
            let late = enforcer.apply(
                desired: desired, observed: observed, at: start + ShieldStateMachine.escalationGrace)
            #expect(late.applied == [.signal(.kill, victim, app: game)])
            #expect(eventually { processes.reapIfExited(victim) })
        }
    }
}
