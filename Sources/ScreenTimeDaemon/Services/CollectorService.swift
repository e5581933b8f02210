import LinuxActivity
import ServiceLifecycle

/// The collector's event sources (the proc connector, logind's monitor, a focus thread per graphical session) for the
/// daemon's life: closed once the loop that samples them has ended.
final class CollectorService: Service, @unchecked Sendable {
    // @unchecked: as for `EnforcerService`, the loop's thread and this service use the collector one after the other.
    private let collector: Collector

    init(collector: Collector) { self.collector = collector }

    func run() async {
        try? await gracefulShutdown()
        collector.close()
    }
}
