import Enforcement
import Glibc
import LinuxActivity
import Logging
import ScreenTimeEngine
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The engine loop, as a service: a tick every second (and at the instants the engine asks for) that samples,
/// counts, decides and enforces; a policy reload on `SIGHUP` or when the file changes. It runs on a thread of its
/// own, raised in priority when the daemon may (so a machine full of busy loops can't delay a shield), and sleeps in
/// `poll(2)` until the next tick: no task of the cooperative pool wakes for it. Tells systemd when the daemon is
/// ready, its status, and feeds the watchdog, so a loop that hangs is restarted.
///
/// The last service of the group: the first to stop, handing its last batch to the store writer.
public final class EngineLoop: Service, @unchecked Sendable {
    // @unchecked: `daemon` is used only by the loop's thread, and by `run()` before the thread starts and after it
    // has ended; `reloadRequested` is atomic and `thread` is Sendable.
    private let daemon: Daemon
    private let logger: Logger
    private let systemd: SystemdNotifier
    private let priority: EnforcerPriority
    private let reloadRequested = Atomic<Bool>(false)

    /// - Parameters:
    ///   - systemd: tells the service manager when the daemon is ready, reloading or stopping, and its status.
    ///   - priority: the loop thread's scheduling; without the privilege for it the loop runs at normal priority.
    public init(
        daemon: Daemon, logger: Logger, systemd: SystemdNotifier = SystemdNotifier(),
        priority: EnforcerPriority = .nice(-10)
    ) {
        self.daemon = daemon
        self.logger = logger
        self.systemd = systemd
        self.priority = priority
    }

    public func run() async throws {
        let thread: EventThread
        do { thread = try EventThread() } catch {
            throw DaemonServiceError(.loopFailed, "cannot create the engine loop's wake-up pipe", errno: error)
        }
        try daemon.start(at: Clocks.now())
        _ = try? systemd.ready()
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await _ in hangups {
                    reloadRequested.store(true, ordering: .releasing)
                    thread.wakeup.signal()
                }
            }
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    thread.start(name: "engine-loop") { [self] in
                        loop(on: thread)
                        done.resume()
                    }
                }
            } onGracefulShutdown: {
                thread.requestStop()
            }
            group.cancelAll()
        }
        _ = try? systemd.stopping()
        daemon.stop(at: Clocks.now())
        logger.info("engine loop stopped")
    }

    private func loop(on thread: EventThread) {
        do {
            try priority.applyToCurrentThread()
        } catch {
            logger.info("the engine loop runs at normal priority", metadata: ["error": "\(error)"])
        }
        var lastStatus = ""
        let feedsWatchdog = systemd.watchdogInterval() != nil
        var nextTick = Clocks.monotonic()
        while !thread.isStopping {
            let now = Clocks.now()
            if reloadRequested.exchange(false, ordering: .acquiringAndReleasing) {
                logger.info("SIGHUP: reloading the policy")
                _ = try? systemd.reloading()
                daemon.reload(at: now)
                _ = try? systemd.ready()
            }
            let monotonic = Duration.nanoseconds(now.monotonic.nanoseconds)
            if monotonic >= nextTick {
                daemon.tick(at: now)
                if feedsWatchdog { _ = try? systemd.watchdog() }
                let status = status()
                if status != lastStatus {
                    _ = try? systemd.status(status)
                    lastStatus = status
                }
                nextTick += daemon.settings.tickInterval
                // After a stall or suspend, start again from now rather than catching up tick by tick.
                if nextTick < monotonic { nextTick = monotonic + daemon.settings.tickInterval }
            } else if let wakeUp = daemon.wakeUp, wakeUp <= now.monotonic {
                daemon.wake(at: now)
            }
            var deadline = nextTick
            if let wakeUp = daemon.wakeUp { deadline = min(deadline, .nanoseconds(wakeUp.nanoseconds)) }
            wait(until: deadline, on: thread.wakeup)
        }
    }

    /// Sleeps until `deadline` (monotonic) or until the wake-up descriptor is signalled. The timeout is rounded up to
    /// the millisecond, so the loop never wakes before an instant the engine asked for.
    private func wait(until deadline: Duration, on wakeup: WakeupDescriptor) {
        let pause = deadline - Clocks.monotonic()
        guard pause > .zero else { return }
        let (seconds, attoseconds) = pause.components
        let milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        var entry = pollfd(fd: wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)
        if poll(&entry, 1, milliseconds) > 0 { wakeup.drain() }
    }

    private func status() -> String {
        "\(daemon.plan.limits.count) limits, \(daemon.plan.downtimeShields.count) downtimes, "
            + "\(daemon.shieldedUsers) users shielded"
    }
}
