import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeEngine
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `screentimed`'s main loop as a service: a tick every second (and at the engine's wake-ups), a policy reload on
/// `SIGHUP` or when the file changes, and a clean stop that writes everything and releases every shield. Tells
/// systemd when it is ready, its status, and feeds the watchdog from the loop.
public final class DaemonService: Service, @unchecked Sendable {
    // @unchecked: `daemon` is used only inside `run()`, by one task; `reloadRequested` is atomic.
    private let daemon: Daemon
    private let logger: Logger
    private let systemd: SystemdNotifier
    private let reloadRequested = Atomic<Bool>(false)

    /// - Parameter systemd: tells the service manager when the daemon is ready, reloading or stopping, and its status.
    public init(daemon: Daemon, logger: Logger, systemd: SystemdNotifier = SystemdNotifier()) {
        self.daemon = daemon
        self.logger = logger
        self.systemd = systemd
    }

    public func run() async throws {
        try daemon.start(at: Clocks.now())
        _ = try? systemd.ready()
        defer {
            _ = try? systemd.stopping()
            daemon.stop(at: Clocks.now())
        }
        var lastStatus = ""
        // The watchdog is fed by the loop itself, so a loop that hangs is restarted.
        let feedsWatchdog = systemd.watchdogInterval() != nil
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await _ in hangups { reloadRequested.store(true, ordering: .relaxed) }
            }
            var nextTick = Clocks.monotonic()
            // A graceful shutdown ends the loop at its next wake-up (within a second); wrapping every sleep in
            // `cancelWhenGracefulShutdown` instead cost a task group per tick, 40 % of the idle daemon's CPU.
            let stopping = Atomic<Bool>(false)
            await withGracefulShutdownHandler {
            while !stopping.load(ordering: .relaxed) && !Task.isCancelled {
                let now = Clocks.now()
                if reloadRequested.exchange(false, ordering: .relaxed) {
                    logger.info("SIGHUP: reloading the policy")
                    _ = try? systemd.reloading()
                    daemon.reload(at: now)
                    _ = try? systemd.ready()
                }
                let monotonic = Duration.nanoseconds(now.monotonic.nanoseconds)
                if monotonic >= nextTick {
                    daemon.tick(at: now)
                    let status = status()
                    if feedsWatchdog { _ = try? systemd.watchdog() }
                    if status != lastStatus {
                        _ = try? systemd.status(status)
                        lastStatus = status
                    }
                    nextTick = nextTick + daemon.settings.tickInterval
                    // After a stall or suspend, start again from now rather than catching up tick by tick.
                    if nextTick < monotonic { nextTick = monotonic + daemon.settings.tickInterval }
                } else if let wakeUp = daemon.wakeUp, wakeUp <= now.monotonic {
                    daemon.wake(at: now)
                }
                var deadline = nextTick
                if let wakeUp = daemon.wakeUp { deadline = min(deadline, .nanoseconds(wakeUp.nanoseconds)) }
                let pause = max(.zero, deadline - Clocks.monotonic())
                try? await Task.sleep(for: pause)
            }
            } onGracefulShutdown: {
                stopping.store(true, ordering: .relaxed)
            }
            group.cancelAll()
        }
        logger.info("stopping")
    }

    private func status() -> String {
        "\(daemon.plan.limits.count) limits, \(daemon.plan.downtimeShields.count) downtimes, "
            + "\(daemon.shieldedUsers) users shielded"
    }
}

/// The clocks the daemon reads, in one place.
public enum Clocks {
    /// `CLOCK_MONOTONIC` (suspend excluded) as time since boot.
    public static func monotonic() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Monotonic time, wall time (`CLOCK_REALTIME`) and the system time zone, read together.
    public static func now() -> Now {
        let monotonic = monotonic()
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        return Now(
            monotonic: MonotonicInstant(sinceBoot: monotonic),
            wallClock: WallClockInstant(nanosecondsSince1970: Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)),
            timeZone: SystemTimeZone.current())
    }
}

/// The system time zone, re-read when `/etc/localtime` changes (Foundation caches `TimeZone.current`).
enum SystemTimeZone {
    private static let cache = Mutex<(stamp: FileStamp?, zone: TimeZone)>((nil, TimeZone.current))

    static func current() -> TimeZone {
        let stamp = FileStamp(path: "/etc/localtime")
        return cache.withLock { cached in
            if stamp != cached.stamp {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")) ?? ""
                let identifier = target.components(separatedBy: "zoneinfo/").last ?? ""
                cached = (stamp, TimeZone(identifier: identifier) ?? TimeZone(identifier: ProcessInfo.processInfo.environment["TZ"] ?? "") ?? TimeZone.current)
            }
            return cached.zone
        }
    }
}
