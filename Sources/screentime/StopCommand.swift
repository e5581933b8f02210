import ArgumentParser
import Enforcement
import Foundation
import ScreenTimeDaemon
import SystemPackage

/// `screentime stop [--release]`: stops the service; with `--release`, then thaws and resumes what it shielded.
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop screentimed; with --release, also thaw every app it froze.",
        discussion: """
            Shields outlive the daemon: a stopped, restarted or crashed screentimed leaves every shielded app frozen. \
            `stop --release` stops the service (systemctl), waits until no screentimed runs, then thaws exactly what \
            it froze and resumes what it stopped, from its state file. It also works when the service is already \
            stopped or died. Exit status 0 when everything was released, 1 when something could not be.
            """)

    @Flag(help: "Stop the guardian (system) service instead of the calling user's.")
    var system = false

    @Flag(help: "After stopping, thaw and resume every app the daemon shielded.")
    var release = false

    @Option(help: ArgumentHelp("Where the daemon records what it holds.", valueName: "path"))
    var enforcementState: String?

    func run() throws {
        var settings = DaemonSettings.defaults(system: system)
        if let enforcementState { settings.enforcementStatePath = enforcementState }
        stopService()
        // The lock is dropped when the daemon's process ends, however it ends.
        var waited = 0
        while InstanceLock.isHeld(at: settings.lockPath) {
            guard waited < 100 else {
                printError("screentime: screentimed still runs (\(settings.lockPath) is locked); stop it first")
                throw ExitCode(1)
            }
            usleep(100_000)
            waited += 1
        }
        guard release else {
            print("screentimed is stopped; shielded apps stay frozen (`screentime stop --release` thaws them)")
            return
        }
        // Held while releasing: a daemon started meanwhile (D-Bus activation, a timer) waits for it, then takes over
        // a state file that lists what is still held, rather than this command thawing what that daemon froze and
        // emptying its file.
        let lock: InstanceLock
        do {
            lock = try InstanceLock(path: settings.lockPath)
        } catch {
            printError("screentime: \(error)")
            throw ExitCode(1)
        }
        defer { lock.release() }
        let enforcer = Enforcer(
            stateFile: StateFile(path: FilePath(settings.enforcementStatePath)), freezer: try? Freezer())
        do {
            try enforcer.adoptStateFile()
        } catch {
            printError("screentime: \(error)")
            throw ExitCode(1)
        }
        let report = enforcer.releaseAll()
        for failure in report.failures {
            printError("screentime: could not \(failure.action): \(failure.error)")
        }
        print("released: \(report.applied.count) thawed or resumed, \(report.failures.count) failed")
        if !report.failures.isEmpty { throw ExitCode(1) }
    }

    /// `systemctl [--user] stop screentimed.service` (and, for the system service, `screentimed.path` first, which
    /// would start it again while a policy exists); a missing systemctl or unit is not an error (the daemon may run
    /// by hand, or not at all).
    private func stopService() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["systemctl"] + (system ? ["stop", "screentimed.path"] : ["--user", "stop"]) + ["screentimed.service"]
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return
        }
    }
}
