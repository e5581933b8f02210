import Enforcement
import Logging
import ServiceLifecycle

/// What the enforcer holds, across the daemon's life. The enforcer acts on the engine loop's thread (raised in
/// priority, so a shield follows the sample that reached the limit within the same tick); this service, later in the
/// graceful shutdown than the loop, releases every app it still holds once the loop has ended: individual mode never
/// leaves an app frozen. (A start after a crash adopts the state file and releases what the crashed run held.)
final class EnforcerService: Service, @unchecked Sendable {
    // @unchecked: the enforcer is used by the loop's thread until the loop has ended, then here; the service group
    // orders the two (the loop stops first, and its end happens before this service's shutdown).
    private let enforcer: Enforcer
    private let logger: Logger

    init(enforcer: Enforcer, logger: Logger) {
        self.enforcer = enforcer
        self.logger = logger
    }

    func run() async {
        try? await gracefulShutdown()
        let report = enforcer.releaseAll()
        for failure in report.failures {
            logger.error("could not release on stop", metadata: ["action": "\(failure.action)", "error": "\(failure.error)"])
        }
        if !report.entries.isEmpty { logger.info("released every shield", metadata: ["actions": "\(report.entries.count)"]) }
    }
}
