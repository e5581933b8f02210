import CLinux
import Glibc
import Logging
import SystemPackage

/// One run of an extension, supervised on the calling (dedicated) thread: start, read output, enforce the time
/// limit, reap, classify.
struct ExtensionSupervision: Sendable {
    /// A user and group to switch to before the extension's `execve`.
    struct Account: Hashable, Sendable {
        var user: uid_t
        var group: gid_t
    }

    var executable: String
    var arguments: [String]
    var environment: [String: String]
    /// The account the extension runs as; nil: the daemon's own.
    var account: Account?
    var limits: ExtensionLimits
    var logger: Logger

    /// Words that extensions' runtimes print when an allocation fails under `RLIMIT_AS`.
    static let memoryFailureMarkers = [
        "memoryerror", "cannot allocate memory", "out of memory", "failed to allocate", "bad_alloc",
    ]

    /// Runs the extension to its end; blocks the calling thread.
    func run() -> ExtensionOutcome {
        let started: (pid: pid_t, output: FileDescriptor, errors: FileDescriptor)
        switch start() {
        case .success(let value): started = value
        case .failure(let error):
            logger.error("cannot start the extension", metadata: ["error": "\(error)"])
            return ExtensionOutcome(
                termination: .failedToStart(error), timedOut: false, exceededMemoryLimit: false, output: [])
        }
        defer {
            try? started.output.close()
            try? started.errors.close()
        }
        let pidfd = clinux_pidfd_open(started.pid, 0)
        defer { if pidfd >= 0 { close(pidfd) } }

        var collector = OutputCollector(limits: limits, logger: logger)
        var open: [(FileDescriptor, ExtensionOutcome.OutputLine.Stream)] = [
            (started.output, .standardOutput), (started.errors, .standardError),
        ]
        let clock = ContinuousClock()
        var deadline = clock.now + limits.timeLimit
        var timedOut = false
        var sentKill = false
        var status: Int32?
        var drainDeadline: ContinuousClock.Instant?

        while !open.isEmpty || status == nil {
            if let drainDeadline, clock.now >= drainDeadline { break }
            if status == nil && clock.now >= deadline {
                if !timedOut {
                    timedOut = true
                    logger.warning("monitor extension ran past its time limit; sending SIGTERM")
                    Glibc.kill(-started.pid, SIGTERM)
                    deadline = clock.now + limits.terminationGrace
                } else if !sentKill {
                    sentKill = true
                    Glibc.kill(-started.pid, SIGKILL)
                    deadline = clock.now + .seconds(3600)
                }
            }
            var entries = open.map { pollfd(fd: $0.0.rawValue, events: Int16(POLLIN), revents: 0) }
            if status == nil && pidfd >= 0 { entries.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            let until = status == nil ? deadline : (drainDeadline ?? deadline)
            let wait = max(Duration.zero, clock.now.duration(to: until))
            // Without a pidfd, look at the child at least every 100 ms.
            let cap: Duration = pidfd >= 0 ? wait : min(wait, .milliseconds(100))
            let milliseconds = Int32(
                clamping: cap.components.seconds * 1000 + cap.components.attoseconds / 1_000_000_000_000_000 + 1)
            _ = poll(&entries, nfds_t(entries.count), milliseconds)
            for (index, entry) in entries.prefix(open.count).enumerated().reversed()
            where entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                if !collector.read(from: open[index].0, stream: open[index].1) { open.remove(at: index) }
            }
            if status == nil, let exited = reapIfExited(started.pid) {
                status = exited
                // Anything the extension left in its group (holding our pipes open) ends with it.
                Glibc.kill(-started.pid, SIGKILL)
                drainDeadline = clock.now + .seconds(2)
            }
        }
        if status == nil {
            Glibc.kill(-started.pid, SIGKILL)
            status = reap(started.pid)
        }
        collector.finish()
        let termination = Self.termination(status ?? 0)
        var killedByKernel = false
        if case .signaled(SIGKILL) = termination, !sentKill { killedByKernel = true }
        let reportedAllocationFailure =
            termination != .exited(0)
            && collector.lines.contains { line in
                let lowered = line.text.lowercased()
                return Self.memoryFailureMarkers.contains { lowered.contains($0) }
            }
        let outcome = ExtensionOutcome(
            termination: termination, timedOut: timedOut,
            exceededMemoryLimit: !timedOut && (killedByKernel || reportedAllocationFailure), output: collector.lines)
        if !outcome.succeeded {
            logger.warning(
                "monitor extension failed",
                metadata: [
                    "termination": "\(termination)", "timedOut": "\(timedOut)",
                    "exceededMemoryLimit": "\(outcome.exceededMemoryLimit)",
                ])
        }
        return outcome
    }

    private func start() -> Result<(pid: pid_t, output: FileDescriptor, errors: FileDescriptor), DaemonServiceError> {
        let output: (FileDescriptor, FileDescriptor)
        let errors: (FileDescriptor, FileDescriptor)
        do {
            output = try Self.pipe()
            errors = try Self.pipe()
        } catch {
            return .failure(
                DaemonServiceError(.extensionStartFailed, "cannot create pipes for \(executable)", errno: error))
        }
        defer {
            try? output.1.close()
            try? errors.1.close()
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = -ETXTBSY
        // ETXTBSY: a file just written is "busy" while any process forked in the meantime (by another thread) still
        // holds a descriptor to it, which lasts until that child's own execve: milliseconds normally, seconds on a
        // machine whose cores are busy. Retry for up to about 3.5 s.
        for attempt in 0..<40 where pid == -ETXTBSY {
            if attempt > 0 { usleep(UInt32(min(20_000 * attempt, 100_000))) }
            pid = clinux_spawn_limited(
                executable, argv, envp, output.1.rawValue, errors.1.rawValue, limits.addressSpaceBytes ?? 0,
                account?.user ?? uid_t.max, account?.group ?? gid_t.max)
        }
        guard pid > 0 else {
            try? output.0.close()
            try? errors.0.close()
            return .failure(
                DaemonServiceError(
                    .extensionStartFailed, "cannot run the extension \(executable)",
                    errno: Errno(rawValue: -pid)))
        }
        return .success((pid, output.0, errors.0))
    }

    /// A pipe whose ends are close-on-exec from the start (no child another thread starts meanwhile holds them) and
    /// whose read end does not block.
    ///
    /// The C functions are `pipe2(2)` with `O_CLOEXEC` and `fcntl(2)`.
    private static func pipe() throws(Errno) -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&ends) == 0 else { throw Errno(rawValue: errno) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// The child's wait status if it has exited (and is now reaped), nil while it runs.
    ///
    /// The C function is `waitpid(2)` with `WNOHANG`.
    private func reapIfExited(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        return result == pid ? status : nil
    }

    /// Waits for the child and returns its wait status.
    ///
    /// The C function is `waitpid(2)`.
    private func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// `WIFEXITED`/`WEXITSTATUS`/`WTERMSIG` of a wait status.
    static func termination(_ status: Int32) -> ExtensionOutcome.Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
