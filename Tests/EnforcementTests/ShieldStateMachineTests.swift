import Enforcement
import ScreenTimeModel
import Testing

@Suite struct ShieldStateMachineTests {
    let game = AppID("org.example.Game")
    let scope = CgroupPath("/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Game-1.scope")
    let inScope = ProcessIdentity(pid: ProcessID(100), startTime: 1)
    let loose = ProcessIdentity(pid: ProcessID(200), startTime: 2)
    let later = ProcessIdentity(pid: ProcessID(300), startTime: 3)
    let start = ContinuousClock.now

    /// Feeds every action back as `result`.
    func run(_ machine: inout ShieldStateMachine, _ actions: [EnforcementAction], _ result: ActionResult = .done)
        -> [EnforcementAction]
    {
        for action in actions { machine.record(result, of: action) }
        return actions
    }

    @Test func freezeShieldFreezesOwnCgroupsAndStopsLooseProcessesEveryTick() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope), ObservedProcess(loose)]]
        let first = run(&machine, machine.tick(desired: [game: .freeze], observed: observed, at: start))
        #expect(first == [.freeze(scope, app: game), .signal(.suspend, loose, app: game)])

        // Re-applied: a SIGCONT from the user lasts one tick; a process seen for the first time is stopped too.
        let withLater = [game: observed[game]! + [ObservedProcess(later)]]
        let second = machine.tick(desired: [game: .freeze], observed: withLater, at: start + .seconds(1))
        #expect(
            second == [
                .freeze(scope, app: game), .signal(.suspend, loose, app: game), .signal(.suspend, later, app: game),
            ])
        _ = run(&machine, second)
        #expect(machine.held.apps == [.init(app: game, frozen: [scope], stopped: [loose, later])])
    }

    /// Two users share the app: one's shield ends (extra time, the end of a downtime), the other's goes on. What was
    /// held of the first one's processes is let go; the second one's stay held.
    @Test func processesNoShieldHoldsAreLetGoWhileTheAppStaysShieldedForOthers() {
        var machine = ShieldStateMachine()
        let otherScope = CgroupPath(
            "/user.slice/user-1001.slice/user@1001.service/app.slice/app-gnome-org.example.Game-2.scope")
        let observed = [
            game: [
                ObservedProcess(inScope, ownCgroup: scope), ObservedProcess(loose),
                ObservedProcess(later, ownCgroup: otherScope),
            ]
        ]
        _ = run(&machine, machine.tick(desired: [game: .freeze], observed: observed, at: start))
        let oneReleased = [
            game: [
                ObservedProcess(inScope, ownCgroup: scope, shielded: false), ObservedProcess(loose, shielded: false),
                ObservedProcess(later, ownCgroup: otherScope),
            ]
        ]
        let release = machine.tick(desired: [game: .freeze], observed: oneReleased, at: start + .seconds(1))
        #expect(
            release == [
                .thaw(scope, app: game), .signal(.resume, loose, app: game), .freeze(otherScope, app: game),
            ])
        // A failed thaw is tried again at the next tick, and the cgroup is never frozen again meanwhile.
        machine.record(.failed(EnforcementError(.thawFailed, "test", errno: .resourceBusy)), of: release[0])
        _ = run(&machine, Array(release.dropFirst()))
        let retry = run(
            &machine, machine.tick(desired: [game: .freeze], observed: oneReleased, at: start + .seconds(2)))
        #expect(retry == [.thaw(scope, app: game), .freeze(otherScope, app: game)])
        #expect(machine.held.apps == [.init(app: game, frozen: [otherScope])])
        #expect(machine.stoppedUnderShield.isEmpty)
        // A process no shield holds in a cgroup with one a shield holds: the cgroup stays frozen.
        let helper = ProcessIdentity(pid: ProcessID(400), startTime: 4)
        let sharing = [
            game: [
                ObservedProcess(later, ownCgroup: otherScope),
                ObservedProcess(helper, ownCgroup: otherScope, shielded: false),
            ]
        ]
        let shared = machine.tick(desired: [game: .freeze], observed: sharing, at: start + .seconds(3))
        #expect(shared == [.freeze(otherScope, app: game)])
    }

    @Test func unshieldReleasesExactlyWhatWasHeldAndRetriesFailures() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope), ObservedProcess(loose)]]
        _ = run(&machine, machine.tick(desired: [game: .freeze], observed: observed, at: start))

        let release = machine.tick(desired: [:], observed: observed, at: start + .seconds(1))
        #expect(release == [.thaw(scope, app: game), .signal(.resume, loose, app: game)])
        machine.record(.failed(EnforcementError(.thawFailed, "test", errno: .resourceBusy)), of: release[0])
        machine.record(.done, of: release[1])
        #expect(machine.held.apps == [.init(app: game, frozen: [scope])])

        let retry = run(&machine, machine.tick(desired: [:], observed: [:], at: start + .seconds(2)))
        #expect(retry == [.thaw(scope, app: game)])
        #expect(machine.isIdle)
        #expect(machine.tick(desired: [:], observed: [:], at: start + .seconds(3)).isEmpty)
    }

    @Test func aCgroupThatCannotBeFrozenFallsBackToStoppingItsProcesses() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        #expect(first == [.freeze(scope, app: game)])
        machine.record(.failed(EnforcementError(.freezeFailed, "test", errno: .permissionDenied)), of: first[0])

        let second = machine.tick(desired: [game: .freeze], observed: observed, at: start + .seconds(1))
        #expect(second == [.signal(.suspend, inScope, app: game)])
    }

    @Test func aTimedOutFreezeStaysHeldSoItIsThawedLater() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope)]]
        let first = machine.tick(desired: [game: .freeze], observed: observed, at: start)
        machine.record(.failed(EnforcementError(.freezeTimedOut, "test")), of: first[0])
        #expect(machine.held.apps == [.init(app: game, frozen: [scope])])
        #expect(machine.tick(desired: [:], observed: [:], at: start + .seconds(1)) == [.thaw(scope, app: game)])
    }

    @Test func terminateSendsTermOnceThenKillAfterTheGracePeriod() {
        var machine = ShieldStateMachine()
        let mode = ShieldMode.terminate(grace: .seconds(5))
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope)]]
        #expect(
            run(&machine, machine.tick(desired: [game: mode], observed: observed, at: start))
                == [.signal(.terminate, inScope, app: game)])
        #expect(machine.tick(desired: [game: mode], observed: observed, at: start + .seconds(4)).isEmpty)
        let escalation = machine.tick(desired: [game: mode], observed: observed, at: start + .seconds(5))
        #expect(escalation == [.signal(.kill, inScope, app: game)])
        machine.record(.done, of: escalation[0])
        // Killed until gone.
        let again = machine.tick(desired: [game: mode], observed: [:], at: start + .seconds(6))
        #expect(again == [.signal(.kill, inScope, app: game)])
        machine.record(.gone, of: again[0])
        #expect(machine.tick(desired: [game: mode], observed: [:], at: start + .seconds(7)).isEmpty)
        #expect(machine.held.isEmpty)
    }

    @Test func switchingFromFreezeToTerminateThawsFirstSoTheAppCanHandleTerm() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(inScope, ownCgroup: scope)]]
        _ = run(&machine, machine.tick(desired: [game: .freeze], observed: observed, at: start))
        let actions = machine.tick(
            desired: [game: .terminate(grace: .seconds(5))], observed: observed, at: start + .seconds(1))
        #expect(actions == [.thaw(scope, app: game), .signal(.terminate, inScope, app: game)])
    }

    @Test func adoptedResourcesAreReleasedUnlessTheFirstTickShieldsTheAppAgain() {
        let held = HeldResources(apps: [.init(app: game, frozen: [scope], stopped: [loose])])

        var released = ShieldStateMachine(adopting: held)
        #expect(
            released.tick(desired: [:], observed: [:], at: start)
                == [.thaw(scope, app: game), .signal(.resume, loose, app: game)])

        var kept = ShieldStateMachine(adopting: held)
        #expect(
            kept.tick(desired: [game: .freeze], observed: [:], at: start)
                == [.freeze(scope, app: game), .signal(.suspend, loose, app: game)])
    }

    @Test func releaseAllUndoesEveryApp() {
        var machine = ShieldStateMachine()
        let other = AppID("supertuxkart")
        _ = run(
            &machine,
            machine.tick(
                desired: [game: .freeze, other: .freeze],
                observed: [game: [ObservedProcess(inScope, ownCgroup: scope)], other: [ObservedProcess(loose)]],
                at: start))
        let actions = run(&machine, machine.releaseAll())
        #expect(Set(actions) == [.thaw(scope, app: game), .signal(.resume, loose, app: other)])
        #expect(machine.isIdle)
    }

    @Test func aProcessThatVanishedIsForgotten() {
        var machine = ShieldStateMachine()
        let observed = [game: [ObservedProcess(loose)]]
        _ = run(&machine, machine.tick(desired: [game: .freeze], observed: observed, at: start), .gone)
        #expect(machine.held.isEmpty)
        #expect(machine.tick(desired: [:], observed: [:], at: start + .seconds(1)).isEmpty)
    }
}
