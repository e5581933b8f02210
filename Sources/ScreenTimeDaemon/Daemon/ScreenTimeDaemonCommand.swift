import ArgumentParser
import Foundation
import Glibc
import Logging
import ScreenTimeModel
import ServiceLifecycle

/// The `screentimed` command line: runs the daemon until SIGTERM or SIGINT.
public struct ScreenTimeDaemonCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "screentimed",
        abstract: "Screen Time for Linux daemon: counts app use, fires limits and downtime, shields apps.",
        discussion: """
            Individual mode (default, as a systemd user service): limits the calling user from \
            $XDG_CONFIG_HOME/screentime/policy.toml. Guardian mode (--system, as root): every user, from \
            /etc/screentime/default.toml (or /etc/screentime/policy.toml while only that exists). SIGHUP or an edit of the policy file reloads it; an invalid file is refused \
            and the last good policy stays in force. SIGTERM or SIGINT stops cleanly; shields stay in force until \
            `screentime stop --release`. Exit status 78 when the configuration can't work (the token key, another \
            daemon for the same state).
            """,
        version: ScreenTimeVersion.current)

    @Flag(help: "Guardian mode: run as a system service for every user.")
    var system = false

    @Option(help: ArgumentHelp("The policy file.", valueName: "path"))
    var policy: String?

    @Option(help: ArgumentHelp("The usage database (SQLite).", valueName: "path"))
    var database: String?

    @Option(help: ArgumentHelp("The token key file.", valueName: "path"))
    var tokenKey: String?

    @Option(help: ArgumentHelp("Where the enforcer records what it holds.", valueName: "path"))
    var enforcementState: String?

    @Option(help: ArgumentHelp("Seconds of input idleness after which a session counts as idle.", valueName: "seconds"))
    var idleTimeout: Int = 180

    @Option(
        help: ArgumentHelp(
            "The shortest schedule interval a D-Bus client may monitor (Apple's limit: 900 s); tests shorten it.",
            valueName: "seconds"))
    var clientMinimumInterval: Int = 900

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "info"

    public init() {}

    public func run() async throws {
        LoggingSetup.bootstrap(identifier: "screentimed", level: Logger.Level(rawValue: logLevel) ?? .info)
        let logger = Logger(label: "screentimed")
        var settings = DaemonSettings.defaults(system: system)
        if let policy { settings.policyPath = policy }
        if let database { settings.databasePath = database }
        if let tokenKey { settings.tokenKeyPath = tokenKey }
        if let enforcementState { settings.enforcementStatePath = enforcementState }
        guard idleTimeout > 0 else {
            throw ValidationError("--idle-timeout must be more than 0 seconds (default 180)")
        }
        settings.idleTimeout = .seconds(idleTimeout)
        guard clientMinimumInterval > 0 else {
            throw ValidationError("--client-minimum-interval must be more than 0 seconds (Apple's limit is 900)")
        }
        settings.clientLimits.minimumIntervalLength = .seconds(clientMinimumInterval)
        let daemon: Daemon
        do {
            // Guardian mode shows nothing itself: a per-user agent in each session relays shields.
            let notifier = system ? nil : SessionBusNotifier(user: UserID(getuid()), logger: logger)
            daemon = try Daemon(settings: settings, notifier: notifier, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(78)
        }
        if settings.policyPath == Policy.legacySystemPath {
            logger.warning("reading \(Policy.legacySystemPath); move it to \(Policy.systemDefaultPath)")
        }
        logger.info(
            "starting",
            metadata: [
                "mode": "\(system ? "guardian" : "individual")", "policy": "\(settings.policyPath)",
                "database": "\(settings.databasePath)",
            ])
        let group = ServiceGroup(
            configuration: .init(
                services: daemon.services(logger: logger).map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
