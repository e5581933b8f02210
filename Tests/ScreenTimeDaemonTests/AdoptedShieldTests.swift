import Enforcement
import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// What a previous run held, taken over by a new daemon: released only by a tick that has read the processes.
@Suite struct AdoptedShieldTests {
    /// A D-Bus request answered before the first tick (one that activated the daemon, or was queued while it
    /// restarted) enforces: with no process read yet nothing would be shielded, and everything adopted would be let go.
    @Test func enforcingBeforeTheFirstTickReleasesNothingAdopted() throws {
        let directory = try ScratchDirectory()
        let child = try TestChild("/bin/sleep", ["60"], standardOutput: "/dev/null")
        defer {
            child.kill()
            child.wait()
        }
        let stat = try #require(ProcessTable().currentStat(of: ProcessID(child.pid)))
        Glibc.kill(child.pid, SIGSTOP)
        #expect(waitForState(of: child.pid) { $0 == "T" })
        var settings = DaemonSettings.defaults(system: false)
        settings.policyPath = directory.path + "/policy.toml"
        settings.databasePath = directory.path + "/usage.sqlite"
        settings.enforcementStatePath = directory.path + "/enforcement.json"
        settings.tokenKeyPath = directory.path + "/token.key"
        try "".write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        try StateFile(path: .init(settings.enforcementStatePath)).save(
            HeldResources(apps: [.init(app: AppID("org.example.Game"), stopped: [stat.identity])]))
        let daemon = try Daemon(settings: settings, notifier: nil, logger: Logger(label: "screentimed-test"))
        defer { daemon.stop(at: Clocks.now()) }
        daemon.start(at: Clocks.now())
        daemon.enforce(at: Clocks.now())
        // Still stopped: a release would have sent SIGCONT at once.
        #expect(!waitForState(of: child.pid, within: .milliseconds(300)) { $0 != "T" })
        #expect(daemon.enforcer.held.apps.map(\.stopped) == [[stat.identity]])
        // The first tick reads the processes: nothing shields the game, so it is released.
        daemon.tick(at: Clocks.now())
        #expect(waitForState(of: child.pid) { $0 != "T" })
    }

    /// Whether the process's scheduler state (`/proc/PID/stat`) satisfies `condition` within `timeout`.
    private func waitForState(
        of pid: pid_t, within timeout: Duration = .seconds(2), _ condition: (Character) -> Bool
    ) -> Bool {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if let state = ProcessTable().currentStat(of: ProcessID(pid))?.state, condition(state) {
                return true
            }
            usleep(10_000)
        } while ContinuousClock.now < deadline
        return false
    }
}
