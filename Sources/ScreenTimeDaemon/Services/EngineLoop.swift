import CLinux
import Enforcement
import Glibc
import LinuxActivity
import Logging
import ScreenTimeBus
import ScreenTimeEngine
import ServiceLifecycle
import SystemPackage

/// The engine loop, as a service: a tick every second (and at the instants the engine asks for) that samples,
/// counts, decides and enforces; a policy reload on `SIGHUP` or when the file changes. It runs on a thread of its
/// own, raised in priority when the daemon may (so a machine full of busy loops can't delay a shield), and sleeps in
/// `epoll_wait(2)` until the next tick: no task of the cooperative pool wakes for it. Tells systemd when the daemon is
/// ready, its status, and feeds the watchdog, so a loop that hangs is restarted.
///
/// The last service of the group: the first to stop, handing its last batch to the store writer.
public final class EngineLoop: Service, @unchecked Sendable {
    // @unchecked: `daemon` is used only by the loop's thread, and by `run()` before the thread starts and after it
    // has ended.
    private let daemon: Daemon
    private let logger: Logger
    private let systemd: SystemdNotifier
    private let priority: EnforcerPriority

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
        let sleep: LoopSleep
        do {
            sleep = try LoopSleep(
                wakeup: thread.wakeup, files: FileChanges(policyPaths: daemon.policyWatchPaths, logger: logger),
                // The kernel's process events the collector follows, if it can (known after its first refresh): the
                // loop wakes on them while anything is shielded.
                processEvents: { [daemon] in daemon.collector.table.eventsDescriptor })
        } catch {
            throw DaemonServiceError(.loopFailed, "cannot set up the engine loop's wait (epoll)", errno: error)
        }
        daemon.start(at: Clocks.now())
        daemon.busRequests.attachLoop(thread.wakeup)
        // SIGHUP wakes the loop through its own pipe: no task (and no libdispatch signal source) waits for it.
        if clinux_trap_sighup(thread.wakeup.signallingDescriptor.rawValue) != 0 {
            logger.error("cannot handle SIGHUP; edits of the policy file still reload it")
        }
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                thread.start(name: "engine-loop") { [self] in
                    loop(on: thread, sleep: sleep)
                    done.resume()
                }
            }
        } onGracefulShutdown: {
            thread.requestStop()
        }
        // The handler must stop writing to the pipe before the pipe is closed (and its number reused).
        withExtendedLifetime(thread) { _ = clinux_trap_sighup(-1) }
        daemon.busRequests.attachLoop(nil)
        daemon.busRequests.refusePending(ScreenTimeBusError(.unavailable, "screentimed is stopping"))
        _ = try? systemd.stopping()
        daemon.stop(at: Clocks.now())
        logger.info("engine loop stopped")
    }

    private func loop(on thread: EventThread, sleep: LoopSleep) {
        do {
            try priority.applyToCurrentThread()
        } catch {
            logger.info("the engine loop runs at normal priority", metadata: ["error": "\(error)"])
        }
        var lastStatus: Status?
        // systemd is told the loop is alive four times per `WatchdogSec=`, not at every tick: a message to its socket
        // and a wake-up of the manager each time.
        let watchdogInterval = systemd.watchdogInterval().map { $0.nanoseconds / 4 }
        // The loop's times in nanoseconds of CLOCK_MONOTONIC: integer arithmetic, no Duration's 128-bit one per pass.
        let interval = daemon.settings.tickInterval.nanoseconds
        let tickSlack = interval / Int64(Self.tickSlackDivisor)
        var nextTick = Clocks.monotonicInstant()
        var filesReported = false
        var processesChanged = false
        var ready = false
        let recheckInterval = Self.recheckInterval.nanoseconds
        var nextRecheck = nextTick
        var nextWatchdog = nextTick
        // Start-up, reloads and rare events touch much that ticks don't (Foundation's and ICU's set-up, the policy
        // parser, the migrations, a first shield): given back some ticks after a start or a reload, then every few
        // minutes, so that what stays resident is what the daemon uses now.
        var ticksUntilRelease = Self.ticksBeforeRelease
        while !thread.isStopping {
            var now = Clocks.now()
            if clinux_take_sighup() != 0 {
                logger.info("SIGHUP: reloading the policy")
                _ = try? systemd.reloading()
                daemon.reload(at: now)
                _ = try? systemd.ready()
                ticksUntilRelease = Self.ticksBeforeRelease
            }
            daemon.answerBusRequests(at: now)
            let changed = sleep.files.changes(reported: filesReported)
            if changed.timeZone {
                SystemTimeZone.checkForChange()
                now = Clocks.now()
            }
            if changed.policy || daemon.policyRemovalDue(at: now), daemon.reloadIfPolicyChanged(at: now) {
                ticksUntilRelease = Self.ticksBeforeRelease
            }
            let monotonic = now.monotonic
            if monotonic >= nextTick {
                daemon.tick(at: now)
                if !ready {
                    // Ready once the first tick has re-applied every shield still due: a restart opens no window.
                    ready = true
                    _ = try? systemd.ready()
                    let since = Clocks.sinceProcessStart().nanoseconds / 1_000_000
                    logger.notice("ready \(since) ms after exec: first tick done, shields applied")
                }
                if let watchdogInterval, monotonic >= nextWatchdog {
                    _ = try? systemd.watchdog()
                    nextWatchdog.nanoseconds = monotonic.nanoseconds + watchdogInterval
                }
                let status = Status(
                    limits: daemon.plan.limitCount, downtimes: daemon.plan.downtimes.count,
                    shieldedUsers: daemon.shieldedUsers)
                if status != lastStatus {
                    _ = try? systemd.status(status.text)
                    lastStatus = status
                }
                ticksUntilRelease -= 1
                if ticksUntilRelease == 0 {
                    ticksUntilRelease = Self.ticksBetweenReleases
                    let advised = clinux_release_unused_pages()
                    logger.debug("released memory the loop doesn't use", metadata: ["advised bytes": "\(advised)"])
                }
                nextTick.nanoseconds += interval
                // After a stall or suspend, start again from now rather than catching up tick by tick.
                if nextTick < monotonic { nextTick.nanoseconds = monotonic.nanoseconds + interval }
            } else if let wakeUp = daemon.wakeUp, wakeUp <= now.monotonic {
                daemon.wake(at: now)
            } else if processesChanged {
                // A process started or ran a new program while something is shielded: a shielded app is held at
                // once, not at the next tick.
                daemon.enforceNewProcesses(at: now)
            }
            // While anything is shielded the loop wakes on the kernel's process events; otherwise ticks read them.
            sleep.watchProcesses(daemon.shieldedUsers > 0)
            // Processes held by SIGSTOP alone can be resumed by their owner: checked every 100 ms while any are held.
            let rechecks = daemon.holdsStoppedProcesses
            if rechecks, Clocks.monotonicInstant() >= nextRecheck {
                daemon.recheckShields()
                nextRecheck.nanoseconds = Clocks.monotonicInstant().nanoseconds + recheckInterval
            }
            var deadline = nextTick
            if rechecks, nextRecheck < deadline { deadline = nextRecheck }
            // A tick may come a little late (its sample measures the time that really passed); an instant the
            // engine asked for (a threshold, a schedule's boundary) may not.
            if let wakeUp = daemon.wakeUp, wakeUp < deadline {
                (filesReported, processesChanged) = sleep.wait(until: wakeUp, slackNanoseconds: 0)
            } else {
                (filesReported, processesChanged) = sleep.wait(
                    until: deadline, slackNanoseconds: deadline == nextTick ? tickSlack : 0)
            }
        }
    }

    /// How late a tick may come, as a part of the interval between ticks: the kernel may then end the loop's sleep
    /// together with another timer's instead of waking the processor for it alone (a wake-up on its own costs this
    /// loop about a third of its time at 1 s sampling).
    private static let tickSlackDivisor = 20

    /// How often processes held by `SIGSTOP` alone are checked for a `SIGCONT`.
    public static let recheckInterval: Duration = .milliseconds(100)

    /// How many ticks after a start or a reload the loop gives back the memory start-up touched.
    public static let ticksBeforeRelease = 10
    private static let ticksBetweenReleases = 600

    /// What `STATUS=` says, sent when it changes.
    private struct Status: Equatable {
        var limits: Int
        var downtimes: Int
        var shieldedUsers: Int

        var text: String { "\(limits) limits, \(downtimes) downtimes, \(shieldedUsers) users shielded" }
    }
}

/// What the loop sleeps on: its wake-up pipe (stop requests, `SIGHUP`) and the file watch, registered once with
/// `epoll(7)`, and the kernel's process events while anything is shielded. @unchecked Sendable: made before the
/// loop's thread starts, then used by that thread alone.
private final class LoopSleep: @unchecked Sendable {
    private static let wakeupBit: UInt64 = 1 << 0
    private static let filesBit: UInt64 = 1 << 1
    private static let processesBit = 2
    private let wakeup: WakeupDescriptor
    private let descriptors: DescriptorSet
    let files: FileChanges
    private let processEvents: () -> FileDescriptor?
    private var watchingProcesses = false

    init(wakeup: WakeupDescriptor, files: FileChanges, processEvents: @escaping () -> FileDescriptor?) throws(Errno) {
        self.wakeup = wakeup
        self.files = files
        self.processEvents = processEvents
        // The pipe reports as bit 0, the file watch (if any) as bit 1, the process events as bit 2.
        descriptors = try DescriptorSet([wakeup.fileDescriptor] + (files.fileDescriptor.map { [$0] } ?? []))
    }

    /// Wakes the loop on the kernel's process events, or stops doing so; one system call when it changes.
    func watchProcesses(_ watching: Bool) {
        guard watching != watchingProcesses, let processEvents = processEvents() else { return }
        do {
            try descriptors.watch(processEvents, asBit: Self.processesBit, watching)
            watchingProcesses = watching
        } catch {
            return
        }
    }

    /// The thread's timer slack now, in nanoseconds (0: the kernel's default, 50 µs).
    private var slack: Int64 = 0

    /// Sleeps until `deadline`, or up to `slackNanoseconds` later, until the wake-up descriptor is signalled or until
    /// a watched file changes. The timeout is rounded up to the millisecond, so the loop never wakes before an
    /// instant the engine asked for. Returns whether the file watch has events to read, and whether processes
    /// started, ran a new program or ended (while they are watched).
    func wait(until deadline: MonotonicInstant, slackNanoseconds: Int64) -> (files: Bool, processes: Bool) {
        let pause = deadline.nanoseconds - Clocks.monotonicInstant().nanoseconds
        guard pause > 0 else { return (false, false) }
        if slackNanoseconds != slack {
            // The slack changes only between ticks and an engine's instant: rarely, and one system call then.
            if clinux_set_timer_slack(UInt(slackNanoseconds)) == 0 { slack = slackNanoseconds }
        }
        let milliseconds = Int32(clamping: (pause + 999_999) / 1_000_000)
        let ready = descriptors.wait(timeoutMilliseconds: milliseconds)
        if ready & Self.wakeupBit != 0 { wakeup.drain() }
        return (ready & Self.filesBit != 0, ready & (1 << Self.processesBit) != 0)
    }
}

/// The files whose change the loop acts on, `/etc/localtime` and the policies: watched through `inotify(7)` so that a
/// tick reads none while they don't change; a file whose directory can't be watched (the policy's directory may
/// not exist yet, or was removed) is checked at each pass instead, and watched again once its directory exists.
private final class FileChanges {
    private let watch: FileWatch?
    private let policyPaths: [String]

    init(policyPaths: [String], logger: Logger) {
        self.policyPaths = policyPaths
        do {
            watch = try FileWatch(paths: [SystemTimeZone.path] + policyPaths)
        } catch {
            logger.warning(
                "cannot watch files; the policy and the time zone are checked at each tick",
                metadata: ["error": "\(error)"])
            watch = nil
        }
    }

    var fileDescriptor: FileDescriptor? { watch?.fileDescriptor }

    /// What may have changed since the last call; `reported` says whether the watch's descriptor was found readable.
    func changes(reported: Bool) -> (timeZone: Bool, policy: Bool) {
        guard let watch else { return (true, true) }
        if !reported, watch.unwatched.isEmpty { return (false, false) }
        var changed = reported ? watch.changes() : []
        changed.formUnion(watch.rewatch())
        let unwatched = watch.unwatched
        return (
            unwatched.contains(SystemTimeZone.path) || changed.contains(SystemTimeZone.path),
            policyPaths.contains { unwatched.contains($0) || changed.contains($0) }
        )
    }
}
