import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeBus
import ServiceLifecycle

@testable import ScreenTimeDaemon

/// A `Daemon` running its whole service group (engine loop, bus server, store writer…) in this process, offering its
/// D-Bus API on a private bus, with its files in a scratch directory that outlives `stop()` so a second daemon can
/// start on them.
final class RunningDaemon: @unchecked Sendable {
    // @unchecked: `daemon` is touched by the loop's thread only while running; tests read it after `stop()`.
    let daemon: Daemon
    let settings: DaemonSettings
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts a daemon on `address` with its files in `directory`, and waits until it owns its bus name.
    /// `system`: guardian mode, its default policy `directory/default.toml` and the users' in `directory/users`.
    init(address: String, directory: String, limits: ClientLimits = .apple, policy: String = "", system: Bool = false)
        async throws
    {
        var settings = DaemonSettings.defaults(system: system)
        settings.policyPath = directory + (system ? "/default.toml" : "/policy.toml")
        if system { settings.userPoliciesFolder = directory + "/users" }
        settings.databasePath = directory + "/usage.sqlite"
        settings.enforcementStatePath = directory + "/enforcement.json"
        settings.tokenKeyPath = directory + "/token.key"
        settings.busEndpoint = .address(address)
        settings.clientLimits = limits
        if !system, !FileManager.default.fileExists(atPath: settings.policyPath) {
            try policy.write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        }
        var logger = Logger(label: "screentimed-test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["BUS_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        daemon = try Daemon(settings: settings, notifier: nil, logger: logger)
        self.settings = settings
        let group = ServiceGroup(services: daemon.services(logger: logger), logger: logger)
        self.group = group
        task = Task.detached { try await group.run() }
        // Waits without holding a thread of the cooperative pool: the daemon's services need one to start.
        let probe = try Bus.connect(address: address)
        let deadline = ContinuousClock.now + .seconds(60)
        while !(daemon.busRequests.isLoopAttached && probe.nameOwner(ScreenTimeBusName.service) != nil) {
            guard ContinuousClock.now < deadline else {
                await stop()
                throw POSIXError(.ETIMEDOUT)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops the service group (as SIGTERM would) and waits for it.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// The output (standard output and error together) and exit status of a command run through `/bin/sh`.
struct CommandResult {
    var output: String
    var status: Int32

    /// Runs `command` with `/bin/sh -c`, waits for it and reads what it wrote.
    init(_ command: String, in directory: ScratchDirectory) throws {
        let file = directory.path + "/command-\(UUID().uuidString).out"
        let child = try TestChild("/bin/sh", ["-c", "{ \(command); } 2>&1"], standardOutput: file)
        let wait = child.wait()
        status = (wait >> 8) & 0xff
        output = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }
}
