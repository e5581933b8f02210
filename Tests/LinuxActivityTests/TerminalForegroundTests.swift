import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

/// A terminal session's app in front follows the terminal's foreground process group from one tick to the next, also
/// when nothing but the group changes (no process starts or exits, as with `fg` and Ctrl-Z in a shell): a real
/// pseudo-terminal (script(1)) owned by user nobody, and a real job-control switch (tcsetpgrp(3) from perl).
@Suite(
    .enabled(
        if: getuid() == 0 && !Logind.isAvailable,
        "needs root (the terminal belongs to another user) and no logind (sessions are then derived from terminals)"))
struct TerminalForegroundTests {
    /// Session leader on its terminal: puts a child `sleep` in a process group of its own, then hands the terminal to
    /// that group on SIGUSR1 and takes it back on SIGUSR2; on SIGTERM ends the child and itself.
    static let program = """
        use POSIX; $SIG{TTOU} = "IGNORE"; my $c = fork(); if ($c == 0) { setpgid(0, 0); exec("/bin/sleep", "1000"); }
        setpgid($c, $c); $SIG{USR1} = sub { tcsetpgrp(0, $c) }; $SIG{USR2} = sub { tcsetpgrp(0, getpgrp()) };
        $SIG{TERM} = sub { kill("KILL", $c); waitpid($c, 0); exit(0) }; while (1) { sleep(1) }
        """

    @Test func theAppInFrontFollowsTheForegroundGroupWithNoProcessStartingOrExiting() throws {
        // Started with an empty signal mask and default handlers (the test runner's threads block signals).
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let script = try processes.start(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/script", "-qfc",
                "exec /usr/bin/perl -e '\(Self.program)'", "/dev/null",
            ]
        ).pid
        var leader: ProcessID?
        defer {
            // The leader's child and the leader, before script(1) is stopped: the child sits in a process group of its
            // own, which the terminal's hangup would not reach.
            for perl in [leader?.rawValue, childOf(script)].compactMap({ $0 }) {
                if let child = childOf(perl) { kill(child, SIGKILL) }
                kill(perl, SIGKILL)
            }
        }

        let collector = Collector(tokenizer: Tokenizer(key: Array(repeating: 7, count: 32)))
        defer { collector.close() }
        var second: Int64 = 0
        func front() -> AppInUse? {
            second += 1
            let snapshot = collector.tick(now: .seconds(second), wallNow: Int64(time(nil)))
            return snapshot.sessions.compactMap { $0.foreground }.first { app in
                guard let pid = app.pid else { return false }
                return pid.rawValue == leader?.rawValue || parent(of: pid.rawValue) == script
                    || parent(of: pid.rawValue) == leader?.rawValue
            }
        }

        // The leader (perl, the session's first process) is in front, and its child is in place.
        #expect(eventually { front()?.pid.map { parent(of: $0.rawValue) == script } ?? false })
        leader = front()?.pid
        let perl = try #require(leader)
        #expect(eventually { childOf(perl.rawValue) != nil })
        let sleeper = try #require(childOf(perl.rawValue))
        #expect(front()?.pid == perl)
        #expect(front()?.pid == perl)

        kill(perl.rawValue, SIGUSR1)
        #expect(eventually { front()?.pid?.rawValue == sleeper })
        #expect(front()?.id == AppID("sleep"))
        kill(perl.rawValue, SIGUSR2)
        #expect(eventually { front()?.pid == perl })
        #expect(front()?.pid == perl)
    }

    /// A terminal session's presence follows its input from one tick to the next while nothing else about it changes
    /// (same processes, same app in front): the terminal's access time, set here as a key press would.
    @Test func thePresenceFollowsTheTerminalsInputWithNothingElseChanging() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let script = try processes.start(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/script", "-qfc",
                "exec /bin/sleep 1000", "/dev/null",
            ]
        ).pid
        // The sleep leads the terminal's session; ended before script(1) in case the hangup doesn't reach it.
        defer { if let sleeper = childOf(script) { kill(sleeper, SIGKILL) } }

        var configuration = Collector.Configuration()
        configuration.idleTimeout = .seconds(2)
        let collector = Collector(
            configuration: configuration, tokenizer: Tokenizer(key: Array(repeating: 7, count: 32)))
        defer { collector.close() }
        var second: Int64 = 0
        func session() -> SessionActivity? {
            second += 1
            return collector.tick(now: .seconds(second), wallNow: Int64(time(nil))).sessions.first { activity in
                activity.foreground?.pid.map { parent(of: $0.rawValue) == script } ?? false
            }
        }
        #expect(eventually { session() != nil })
        let tty = try #require(session()?.tty)
        func lastInput(secondsAgo: Int) {
            // Access time only; UTIME_OMIT leaves the modification time.
            var times = [
                timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
            ]
            #expect(utimensat(AT_FDCWD, "/dev/\(tty)", &times, 0) == 0)
        }

        lastInput(secondsAgo: 0)
        #expect(session()?.presence == .active)
        // Set back, the access time changes the terminal's change time to the present, which can't be set: idle only
        // once the idle timeout has passed since then.
        lastInput(secondsAgo: 600)
        #expect(session()?.presence == .active)
        #expect(eventually { session()?.presence == .idle })
        #expect(session()?.idle == true)
        lastInput(secondsAgo: 0)
        #expect(session()?.presence == .active)
        #expect(session()?.presence == .active)
    }

    private func parent(of pid: pid_t) -> pid_t? {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// A child of `parent` (the processes here have one each).
    private func childOf(_ parent: pid_t) -> pid_t? {
        guard let directory = opendir("/proc") else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = pid_t(name), self.parent(of: pid) == parent else { continue }
            return pid
        }
        return nil
    }

    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<50 {
            if condition() { return true }
            usleep(100_000)
        }
        return false
    }
}
