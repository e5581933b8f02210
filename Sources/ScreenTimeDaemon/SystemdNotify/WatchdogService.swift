import Logging
import ServiceLifecycle

/// Keeps systemd's watchdog fed: sends `WATCHDOG=1` every half of the interval until cancelled or until graceful
/// shutdown.
///
/// Add it only when `SystemdNotifier().watchdogInterval()` is not nil, and put it first in the `ServiceGroup`:
/// services shut down in reverse order, so the watchdog keeps being fed while the others finish.
public struct WatchdogService: Service {
    /// The notifier that sends the pings.
    public let notifier: SystemdNotifier
    /// systemd's watchdog interval (`WatchdogSec=`).
    public let interval: Duration
    /// Where a failed ping is reported (once per failure streak).
    public let logger: Logger

    /// Creates the service for systemd's `interval`.
    public init(notifier: SystemdNotifier = SystemdNotifier(), interval: Duration, logger: Logger) {
        self.notifier = notifier
        self.interval = interval
        self.logger = logger
    }

    /// Pings at once, then every `interval / 2`; returns on cancellation or graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing = false
            while !Task.isCancelled {
                do {
                    try notifier.watchdog()
                    failing = false
                } catch {
                    if !failing { logger.error("cannot feed the systemd watchdog", metadata: ["error": "\(error)"]) }
                    failing = true
                }
                do { try await Task.sleep(for: interval / 2) } catch { return }
            }
        }
    }
}
