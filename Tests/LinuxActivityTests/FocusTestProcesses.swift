import CLinux
import Foundation
import Glibc

/// Processes a focus test started, stopped by their own pids in reverse order of start (clients before the
/// compositor: `wev` spins at 100 % CPU when sway dies first), and temporary directories removed.
final class FocusTestProcesses: @unchecked Sendable {
    // Invariant: used by one test at a time; the lock only guards against a stray concurrent `stopAll`.
    private let lock = NSLock()
    private var children: [FocusTestChild] = []
    private var directories: [String] = []

    /// Starts `executable` with `arguments` and exactly `environment` (plus a `PATH`), with default signal
    /// dispositions and an empty signal mask; stdout goes to a pipe when `captureOutput`, stderr to `log`.
    @discardableResult
    func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        captureOutput: Bool = false, log: String = "/dev/null"
    ) throws -> FocusTestChild {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        clinux_spawnattr_reset_signals(&attributes)
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        var outputPipe: [Int32] = [-1, -1]
        if captureOutput {
            // Close-on-exec from the start: a child another test spawns meanwhile must not hold the write end (the
            // reader would wait for that child's end, not this one's).
            guard clinux_pipe_cloexec(&outputPipe) == 0 else { throw POSIXError(.EMFILE) }
            posix_spawn_file_actions_adddup2(&fileActions, outputPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&fileActions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&fileActions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let environment = environment.merging(["PATH": "/usr/local/bin:/usr/bin:/bin"]) { own, _ in own }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Nothing else of this process's: a test child that lives on must not hold a file another test wrote (its
        // program is then "busy", ETXTBSY) or a pipe another test reads to its end.
        clinux_spawn_actions_close_from(&fileActions, 3)
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &fileActions, &attributes, argv, envp)
        if captureOutput { close(outputPipe[1]) }
        guard status == 0 else {
            if captureOutput { close(outputPipe[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO)
        }
        let child = FocusTestChild(pid: pid, output: captureOutput ? outputPipe[0] : nil)
        lock.withLock { children.append(child) }
        return child
    }

    /// Starts `executable` as `user` (through `setpriv` and `env`, which exec, so the pid is the program's own), in
    /// `/`: the test's own working folder (the checkout) may be closed to that user.
    @discardableResult
    func start(
        asUser user: FocusTestUser, _ executable: String, _ arguments: [String], environment: [String: String],
        log: String = "/dev/null"
    ) throws -> FocusTestChild {
        var environment = environment
        environment["HOME"] = user.home
        environment["USER"] = user.name
        return try start(
            "/usr/bin/setpriv",
            [
                "--reuid=\(user.uid)", "--regid=\(user.gid)", "--init-groups", "--", "/usr/bin/env", "-C", "/",
                executable,
            ]
                + arguments,
            environment: environment, log: log)
    }

    /// Runs a short command to completion and returns its status and standard output. Not through Foundation's
    /// `Process`: its pipe's ends are inherited by whatever another test spawns meanwhile (a `dbus-daemon` that
    /// lives on), and reading to the end then waits for that process instead of this command.
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String)
    {
        let child = try start(executable, arguments, environment: environment, captureOutput: true)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while let descriptor = child.output {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output += chunk[..<count]
        }
        if let descriptor = child.output { close(descriptor) }
        // Reaped here, so no longer one of the children `stopAll` stops.
        lock.withLock { children.removeAll { $0.pid == child.pid } }
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + status & 0x7f, String(decoding: output, as: UTF8.self))
    }

    /// Makes a temporary directory removed by `stopAll()`.
    func temporaryDirectory(_ prefix: String) throws -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.EIO)
        }
        let directory = String(cString: path)
        lock.withLock { directories.append(directory) }
        return directory
    }

    /// Stops one child: SIGTERM, then SIGKILL after `grace`; reaps it by its pid.
    func stop(_ child: FocusTestChild, grace: Duration = .seconds(2)) {
        lock.withLock { children.removeAll { $0.pid == child.pid } }
        defer { if let output = child.output { close(output) } }
        guard kill(child.pid, SIGTERM) == 0 else { return }
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(child.pid, &status, WNOHANG) != 0 { return }
            usleep(10_000)
        }
        print("focus test harness: pid \(child.pid) ignored SIGTERM for \(grace), killing it")
        kill(child.pid, SIGKILL)
        waitpid(child.pid, &status, 0)
    }

    /// How the child ended ("exit status N", "signal N"), reaping it, or nil while it runs. A child ended so is no
    /// longer one of those `stopAll` stops.
    func exitStatus(_ child: FocusTestChild) -> String? {
        var status: Int32 = 0
        guard waitpid(child.pid, &status, WNOHANG) == child.pid else { return nil }
        lock.withLock { children.removeAll { $0.pid == child.pid } }
        return status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
    }

    /// What became of the child, for a failure's message: how it ended (reaping it), or its state now
    /// (`/proc/PID/stat`: R, S, T for stopped…).
    func describe(_ child: FocusTestChild) -> String {
        if let ended = exitStatus(child) { return "ended (\(ended))" }
        let stat = (try? String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8)) ?? ""
        let state = stat.lastIndex(of: ")").map { stat[stat.index($0, offsetBy: 2)...].prefix(1) } ?? "?"
        return "runs, state \(state)"
    }

    /// Whether the child is still running (not yet exited); reaps it if it has exited.
    func isRunning(_ child: FocusTestChild) -> Bool {
        var status: Int32 = 0
        return waitpid(child.pid, &status, WNOHANG) == 0
    }

    /// Stops every started child, newest first, and removes the temporary directories.
    func stopAll() {
        let (started, made) = lock.withLock {
            defer { directories = [] }
            return (children, directories)
        }
        for child in started.reversed() { stop(child) }
        for directory in made { try? FileManager.default.removeItem(atPath: directory) }
    }

    deinit {
        stopAll()
    }
}
