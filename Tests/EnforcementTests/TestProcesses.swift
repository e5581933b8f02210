import CLinux
import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import SystemPackage

/// Processes a test starts. `stopAll()` (in a `defer`) kills each by the pid it started and reaps it.
final class TestProcesses {
    private(set) var started: [ProcessIdentity] = []

    static let busyLoop = ["/bin/sh", "-c", "while :; do :; done"]
    static let ignoresTerminate = ["/bin/sh", "-c", "trap '' TERM; while :; do :; done"]

    /// Starts `argv` with posix_spawn and returns its identity.
    func spawn(_ argv: [String] = busyLoop) throws -> ProcessIdentity {
        var pid: pid_t = 0
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        // Children get default dispositions and an empty mask whatever the test runner blocks or ignores.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        clinux_spawnattr_reset_signals(&attributes)
        // Nothing else of this process's: a child that lives on must not hold a file another test wrote.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        clinux_spawn_actions_close_from(&actions, 3)
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, &arguments, environ)
        guard result == 0 else { throw Errno(rawValue: result) }
        return try remember(ProcessID(pid))
    }

    /// Starts `argv` directly inside the cgroup at `directory` (clone3 with CLONE_INTO_CGROUP).
    func spawn(_ argv: [String] = busyLoop, insideCgroupAt directory: FilePath) throws -> ProcessIdentity {
        let cgroup = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
        defer { try? cgroup.close() }
        var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let pid = clinux_spawn_into_cgroup(cgroup.rawValue, argv[0], &arguments, environ)
        guard pid > 0 else { throw Errno(rawValue: clinux_errno()) }
        return try remember(ProcessID(pid))
    }

    private func remember(_ pid: ProcessID) throws -> ProcessIdentity {
        guard let status = ProcessStatus.read(pid) else { throw Errno.noSuchProcess }
        let identity = ProcessIdentity(pid: pid, startTime: status.startTime)
        started.append(identity)
        return identity
    }

    /// Kills and reaps every process this object started (by pid: they are our children, so their pids cannot
    /// have been reused before we reap them).
    func stopAll() {
        for process in started {
            Glibc.kill(process.pid.rawValue, SIGKILL)
            var status: Int32 = 0
            while waitpid(process.pid.rawValue, &status, 0) == -1 && errno == EINTR {}
        }
        started = []
    }

    /// Reaps one process if it has exited; returns whether it had.
    func reapIfExited(_ process: ProcessIdentity) -> Bool {
        var status: Int32 = 0
        let result = waitpid(process.pid.rawValue, &status, WNOHANG)
        if result == process.pid.rawValue {
            started.removeAll { $0 == process }
            return true
        }
        return false
    }
}

/// Nanoseconds the process has spent on a CPU (`/proc/PID/schedstat`, first field).
func cpuNanoseconds(_ process: ProcessIdentity) -> UInt64? {
    guard let text = try? String(contentsOfFile: "/proc/\(process.pid.rawValue)/schedstat", encoding: .utf8),
        let first = text.split(separator: " ").first
    else { return nil }
    return UInt64(first)
}

/// The process's command name (`/proc/PID/comm`): the test runner's until the child has exec'd.
func commandName(_ process: ProcessIdentity) -> String? {
    (try? String(contentsOfFile: "/proc/\(process.pid.rawValue)/comm", encoding: .utf8))?
        .trimmingCharacters(in: .newlines)
}

/// Whether the process ignores `signal` (its bit in `SigIgn:` of `/proc/PID/status`).
func ignores(_ process: ProcessIdentity, signal: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(process.pid.rawValue)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
        let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << UInt64(signal - 1)) != 0
}

/// The scheduler state letter of the process.
func schedulerState(_ process: ProcessIdentity) -> Character? {
    ProcessStatus.read(process.pid)?.state
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
func eventually(within timeout: Duration = .seconds(2), _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// Whether every process gets CPU time within a generous window (busy loops on a shared two-core machine).
func allMakeProgress(_ processes: [ProcessIdentity], within timeout: Duration = .seconds(5)) -> Bool {
    let before = processes.map { cpuNanoseconds($0) ?? 0 }
    return eventually(within: timeout) {
        zip(processes, before).allSatisfy { process, start in (cpuNanoseconds(process) ?? 0) > start }
    }
}

/// Whether no process gets any CPU time over an observation window.
func noneMakeProgress(_ processes: [ProcessIdentity], over window: Duration = .milliseconds(300)) -> Bool {
    let before = processes.map { cpuNanoseconds($0) }
    usleep(UInt32(window.components.seconds * 1_000_000 + window.components.attoseconds / 1_000_000_000_000))
    return processes.map { cpuNanoseconds($0) } == before
}

/// A cgroup made for one test under the cgroup2 mount, named like a desktop app scope. `remove()` (in a `defer`)
/// thaws it and removes it once the test's processes are gone.
final class TestCgroup {
    let freezer: Freezer
    let path: CgroupPath
    private static let counter = Counter()

    /// Whether this host lets us create cgroups (root and a writable cgroup2 mount).
    static var isAvailable: Bool {
        guard getuid() == 0, let freezer = try? Freezer() else { return false }
        return access(freezer.mountPoint.string + "/cgroup.procs", W_OK) == 0
    }

    init() throws {
        freezer = try Freezer()
        path = CgroupPath("/app-test-org.example.Game-\(getpid())-\(Self.counter.next()).scope")
        if mkdir(directory.string, 0o755) != 0 { throw Errno(rawValue: errno) }
    }

    var directory: FilePath { freezer.directory(of: path) }

    /// Moves a process into this cgroup.
    func add(_ process: ProcessIdentity) throws {
        try write("\(process.pid.rawValue)", to: "cgroup.procs")
    }

    func remove() {
        try? write("0", to: "cgroup.freeze")
        _ = eventually {
            (try? String(contentsOfFile: directory.string + "/cgroup.procs", encoding: .utf8))?.isEmpty ?? true
        }
        rmdir(directory.string)
    }

    private func write(_ text: String, to file: String) throws {
        let descriptor = try FileDescriptor.open(directory.appending(file), .writeOnly)
        defer { try? descriptor.close() }
        _ = try descriptor.writeAll(Array(text.utf8))
    }

    private final class Counter: @unchecked Sendable {
        // Guarded by the lock; tests run in parallel.
        private var value = 0
        private let lock = NSLock()
        func next() -> Int {
            lock.withLock {
                value += 1; return value
            }
        }
    }
}
