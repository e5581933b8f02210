import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import SystemPackage
import Testing

extension KernelTests {
    @Suite struct EnforcerTests {
        let game = AppID("org.example.Game")

        func temporaryStateFile() -> StateFile {
            StateFile(path: FilePath(NSTemporaryDirectory() + "enforcement-\(getpid())-\(UUID()).json"))
        }

        @Test func stopModeIsReappliedAfterSigcontCatchesLateProcessesAndResumesOnlyWhatItStopped() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let stateFile = temporaryStateFile()
            defer { try? stateFile.save(HeldResources()) }
            let enforcer = Enforcer(stateFile: stateFile, freezer: nil)
            let clock = ContinuousClock()

            let first = try processes.spawn()
            let second = try processes.spawn()
            let bystander = try processes.spawn()
            Glibc.kill(bystander.pid.rawValue, SIGSTOP)
            #expect(eventually { schedulerState(bystander) == "T" })

            var observed = [game: [ObservedProcess(first), ObservedProcess(second)]]
            var report = enforcer.apply(desired: [game: .freeze], observed: observed, at: clock.now)
            #expect(report.failures.isEmpty)
            #expect(eventually { schedulerState(first) == "T" && schedulerState(second) == "T" })
            #expect(
                try stateFile.load().apps == [.init(app: game, stopped: [first, second].sorted { $0.pid < $1.pid })])

            // The user resumes one: the next tick stops it again.
            Glibc.kill(first.pid.rawValue, SIGCONT)
            #expect(allMakeProgress([first]))
            _ = enforcer.apply(desired: [game: .freeze], observed: observed, at: clock.now)
            #expect(eventually { schedulerState(first) == "T" })
            // Again, on a tick that changes nothing (the enforcer repeats its last actions without recomputing them).
            Glibc.kill(second.pid.rawValue, SIGCONT)
            #expect(allMakeProgress([second]))
            report = enforcer.apply(desired: [game: .freeze], observed: observed, at: clock.now)
            #expect(report.applied.count == 2)
            #expect(eventually { schedulerState(second) == "T" })

            // A process of the app started after the shield is stopped on the next tick.
            let late = try processes.spawn()
            observed[game]!.append(ObservedProcess(late))
            report = enforcer.apply(desired: [game: .freeze], observed: observed, at: clock.now)
            #expect(report.failures.isEmpty)
            #expect(eventually { schedulerState(late) == "T" })

            report = enforcer.apply(desired: [:], observed: observed, at: clock.now)
            #expect(report.failures.isEmpty)
            #expect(allMakeProgress([first, second, late]))
            #expect(schedulerState(bystander) == "T")
            #expect(enforcer.held.isEmpty)
            #expect(try stateFile.load().isEmpty)
        }

        @Test func freezeModeFreezesTheAppsOwnCgroupAndThawsItOnUnshield() throws {
            // Declared first so that it is removed last, once the processes in it are gone.
            let cgroup = try TestCgroup()
            defer { cgroup.remove() }
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let stateFile = temporaryStateFile()
            defer { try? stateFile.save(HeldResources()) }
            let enforcer = Enforcer(stateFile: stateFile, freezer: cgroup.freezer)
            let clock = ContinuousClock()

            let loops = try (0..<2).map { _ in try processes.spawn(insideCgroupAt: cgroup.directory) }
            let observed = [game: loops.map { ObservedProcess($0, ownCgroup: cgroup.path) }]
            let report = enforcer.apply(desired: [game: .freeze], observed: observed, at: clock.now)
            #expect(report.failures.isEmpty)
            #expect(report.applied == [.freeze(cgroup.path, app: game)])
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == true)
            #expect(noneMakeProgress(loops))

            #expect(enforcer.apply(desired: [:], observed: observed, at: clock.now).failures.isEmpty)
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == false)
            #expect(allMakeProgress(loops))
        }

        @Test func withoutAFreezerProcessesInTheirOwnCgroupAreStoppedOnTheFirstTick() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let enforcer = Enforcer(stateFile: temporaryStateFile(), freezer: nil)
            let loop = try processes.spawn()
            let scope = CgroupPath("/user.slice/user-1000.slice/user@1000.service/app.slice/app-x-1.scope")
            let report = enforcer.apply(
                desired: [game: .freeze], observed: [game: [ObservedProcess(loop, ownCgroup: scope)]],
                at: ContinuousClock.now)
            #expect(report.applied == [.signal(.suspend, loop, app: game)])
            #expect(eventually { schedulerState(loop) == "T" })
            #expect(enforcer.releaseAll().applied == [.signal(.resume, loop, app: game)])
            #expect(eventually { schedulerState(loop) != "T" })
        }

        @Test func terminateModeKillsAProcessThatIgnoresTermAfterTheGracePeriod() throws {
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let enforcer = Enforcer(stateFile: temporaryStateFile(), freezer: nil)
            let polite = try processes.spawn(["/bin/sleep", "1000"])
            let stubborn = try processes.spawn(TestProcesses.ignoresTerminate)
            // The shell must have installed its trap before the signal arrives.
            #expect(eventually { ignores(stubborn, signal: SIGTERM) })
            let observed = [game: [ObservedProcess(polite), ObservedProcess(stubborn)]]
            let mode = ShieldMode.terminate(grace: .seconds(3))
            let start = ContinuousClock.now

            let first = enforcer.apply(desired: [game: mode], observed: observed, at: start)
            #expect(
                first.applied == [.signal(.terminate, polite, app: game), .signal(.terminate, stubborn, app: game)])
            #expect(eventually { processes.reapIfExited(polite) })
            #expect(allMakeProgress([stubborn]))

            let beforeGrace = enforcer.apply(desired: [game: mode], observed: observed, at: start + .seconds(2))
            #expect(beforeGrace.entries.isEmpty)

            let afterGrace = enforcer.apply(desired: [game: mode], observed: observed, at: start + .seconds(3))
            #expect(afterGrace.applied == [.signal(.kill, stubborn, app: game)])
            #expect(eventually { processes.reapIfExited(stubborn) })
        }

        @Test func aNewEnforcerReleasesWhatACrashedOneLeftFrozenAndStopped() throws {
            // Declared first so that it is removed last, once the processes in it are gone.
            let cgroup = try TestCgroup()
            defer { cgroup.remove() }
            let processes = TestProcesses()
            defer { processes.stopAll() }
            let stateFile = temporaryStateFile()
            defer { try? stateFile.save(HeldResources()) }
            let clock = ContinuousClock()

            let frozen = try processes.spawn(insideCgroupAt: cgroup.directory)
            let stopped = try processes.spawn()
            let observed = [
                game: [ObservedProcess(frozen, ownCgroup: cgroup.path)],
                AppID("supertuxkart"): [ObservedProcess(stopped)],
            ]
            // The crashed run: it shielded both apps and then vanished without releasing them.
            do {
                let crashed = Enforcer(stateFile: stateFile, freezer: cgroup.freezer)
                let report = crashed.apply(
                    desired: [game: .freeze, AppID("supertuxkart"): .freeze], observed: observed, at: clock.now)
                #expect(report.failures.isEmpty)
                #expect(report.stateFileError == nil)
            }
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == true)
            #expect(eventually { schedulerState(stopped) == "T" })
            #expect(
                try stateFile.load().apps == [
                    .init(app: game, frozen: [cgroup.path]), .init(app: AppID("supertuxkart"), stopped: [stopped]),
                ])

            let restarted = Enforcer(stateFile: stateFile, freezer: cgroup.freezer)
            try restarted.adoptStateFile()
            let report = restarted.releaseAll()
            #expect(report.failures.isEmpty)
            #expect(try cgroup.freezer.isFrozen(cgroup.path) == false)
            #expect(allMakeProgress([frozen, stopped]))
            #expect(try stateFile.load().isEmpty)
        }

        @Test func aCorruptStateFileIsAnErrorNotAnEmptyState() throws {
            let stateFile = temporaryStateFile()
            defer { try? FileManager.default.removeItem(atPath: stateFile.path.string) }
            try "{ not json".write(toFile: stateFile.path.string, atomically: true, encoding: .utf8)
            let enforcer = Enforcer(stateFile: stateFile, freezer: nil)
            #expect(throws: EnforcementError.self) { try enforcer.adoptStateFile() }
        }
    }
}

/// Moves into scopes, with a confiner that stands in for the service manager: what a move froze is on file before the
/// next move begins (a move can take a second, and the daemon can be killed between two).
@Suite struct ConfineStateFileTests {
    /// Records, at each move, what the state file lists then.
    final class RecordingConfiner: ProcessConfiner {
        let stateFile: StateFile
        var listedAtEachMove: [[CgroupPath]] = []

        init(stateFile: StateFile) { self.stateFile = stateFile }

        func confine(_ process: ProcessIdentity, app: AppID) throws(EnforcementError) -> CgroupPath? {
            listedAtEachMove.append((try? stateFile.load())?.apps.flatMap(\.frozen) ?? [])
            return CgroupPath("/user.slice/app-screentime-game-\(process.pid.rawValue).scope")
        }
    }

    @Test func eachMoveIsOnFileBeforeTheNextBegins() throws {
        let folder = NSTemporaryDirectory() + "confine-\(getpid())-\(UUID())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stateFile = StateFile(path: FilePath(folder + "/enforcement.json"))
        let confiner = RecordingConfiner(stateFile: stateFile)
        // A folder for a freezer: the scopes' freezes (not what is tested) fail at once, as the move's own does.
        let enforcer = Enforcer(
            stateFile: stateFile, freezer: Freezer(mountPoint: FilePath(folder)), confiner: confiner,
            freezeTimeout: .zero)
        let game = AppID("org.example.Game")
        let processes = (1...3).map { ProcessIdentity(pid: ProcessID(Int32(40_000 + $0)), startTime: 7) }
        _ = enforcer.apply(
            desired: [game: .freeze], observed: [game: processes.map { ObservedProcess($0, confinable: true) }],
            at: ContinuousClock.now)
        let scope = { (index: Int) in
            CgroupPath("/user.slice/app-screentime-game-\(processes[index].pid.rawValue).scope")
        }
        #expect(confiner.listedAtEachMove == [[], [scope(0)], [scope(0), scope(1)]])
    }
}
