import Foundation
import Glibc
import Logging
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

@Suite("Monitor extensions as real child processes", .serialized)
struct ExtensionRunnerTests {
    private func runner(_ limits: ExtensionLimits = .standard) -> (ExtensionRunner, RecordingLogHandler.Store) {
        let store = RecordingLogHandler.Store()
        let logger = Logger(label: "test.extensions") { _ in RecordingLogHandler(store: store) }
        return (ExtensionRunner(limits: limits, logger: logger), store)
    }

    @Test("one extension's callbacks run one at a time, in the order given; another extension's alongside")
    func callbacksOfOneExtensionRunInTheirOrder() async throws {
        let directory = try ScratchDirectory()
        let log = directory.path + "/calls"
        FileManager.default.createFile(atPath: log, contents: nil)
        chmod(log, 0o666)  // a root daemon runs extensions as nobody
        // An interval's end takes a while: given before the next start, it is done before the start runs.
        let monitor = try writeScript(
            directory, "monitor",
            """
            [ "$SCREENTIME_CALLBACK" = intervalDidEnd ] && sleep 0.5
            echo "$SCREENTIME_CALLBACK" >> \(log)
            """)
        let other = try writeScript(directory, "other", "echo other >> \(log)")
        let (runner, _) = runner()
        let runs = SerialRuns<String>()
        for callback in [MonitorCallback.intervalDidEnd, .intervalDidStart] {
            runs.run(monitor) { _ = await runner.run(executable: monitor, callback: callback, activity: "focus") }
        }
        runs.run(other) { _ = await runner.run(executable: other, callback: .intervalDidStart, activity: "focus") }
        // Waits without holding a thread of the cooperative pool: the runs need one.
        var lines: [Substring] = []
        for _ in 0..<3_000 where lines.count < 3 {
            try await Task.sleep(for: .milliseconds(10))
            lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        #expect(lines == ["other", "intervalDidEnd", "intervalDidStart"])
    }

    @Test("arguments and SCREENTIME_* variables arrive; output lines of both streams are kept and logged")
    func argumentsEnvironmentAndOutput() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(
            directory, "monitor",
            """
            echo "args: $*"
            echo "env: $SCREENTIME_CALLBACK $SCREENTIME_ACTIVITY $SCREENTIME_EVENT $EXTRA"
            echo "to stderr" >&2
            printf 'no newline at the end'
            """)
        let (runner, store) = runner()
        let outcome = await runner.run(
            executable: script, callback: .eventDidReachThreshold, activity: "daily", event: "games",
            environment: ["EXTRA": "set", "PATH": "/usr/bin:/bin"])
        #expect(outcome.termination == .exited(0))
        #expect(outcome.succeeded && !outcome.timedOut && !outcome.exceededMemoryLimit)
        #expect(
            outcome.output.filter { $0.stream == .standardOutput }.map(\.text) == [
                "args: --callback eventDidReachThreshold --activity daily --event games",
                "env: eventDidReachThreshold daily games set", "no newline at the end",
            ])
        #expect(outcome.output.filter { $0.stream == .standardError }.map(\.text) == ["to stderr"])
        let logged = store.records.withLock { $0 }.filter { $0.metadata["stream"] != nil }
        #expect(logged.count == 4)
        #expect(logged.allSatisfy { $0.metadata["extension"] == "\(script)" })
        #expect(logged.first { $0.message == "to stderr" }?.level == .warning)
        #expect(logged.first { $0.message.hasPrefix("args:") }?.level == .info)
    }

    @Test("no descriptor of the daemon's reaches an extension, not even one opened without close-on-exec")
    func onlyStandardStreamsAreInherited() async throws {
        let directory = try ScratchDirectory()
        // What a library of the daemon's might leave open to be inherited: a file opened without O_CLOEXEC.
        let leaked = try openLeakedDescriptor()
        defer { close(leaked) }
        let script = try writeScript(directory, "monitor", "for f in /proc/$$/fd/*; do echo \"${f##*/}\"; done")
        let outcome = await runner().0.run(executable: script, callback: .intervalDidStart, activity: "daily")
        #expect(outcome.termination == .exited(0))
        let open = Set(outcome.output.map(\.text))
        #expect(open.isSuperset(of: ["0", "1", "2"]))
        #expect(!open.contains("\(leaked)"), "inherited: \(open.sorted())")
    }

    @Test("an interval callback has no --event and no SCREENTIME_EVENT; the exit status is reported")
    func intervalCallback() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "monitor", "echo \"$# ${SCREENTIME_EVENT-unset}\"; exit 3")
        let outcome = await runner().0.run(
            executable: script, callback: .intervalDidStart, activity: "bedtime",
            environment: ["SCREENTIME_EVENT": "stale"])
        #expect(outcome.termination == .exited(3))
        #expect(outcome.output.map(\.text) == ["4 unset"])
        #expect(!outcome.succeeded && !outcome.exceededMemoryLimit)
    }

    @Test("a script that sleeps past the time limit is terminated and reported as timed out")
    func timeout() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "slow", "echo started; exec sleep 600")
        let outcome = await runner(ExtensionLimits(timeLimit: .milliseconds(300))).0.run(
            executable: script, callback: .intervalDidEnd, activity: "daily")
        #expect(outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGTERM))
        #expect(outcome.output.map(\.text) == ["started"])
        #expect(!outcome.exceededMemoryLimit)
    }

    @Test("a script that ignores SIGTERM is killed after the grace period")
    func timeoutEscalates() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "stubborn", "trap '' TERM; echo ignoring; while :; do sleep 1; done")
        let outcome = await runner(ExtensionLimits(timeLimit: .milliseconds(300), terminationGrace: .milliseconds(300)))
            .0.run(executable: script, callback: .intervalDidEnd, activity: "daily")
        #expect(outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGKILL))
        #expect(!outcome.exceededMemoryLimit)
    }

    @Test("what an extension leaves running in its group is killed when it exits, and does not hold the run")
    func leftoversKilled() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "forks", "sleep 600 & echo $!; exit 0")
        let outcome = await runner().0.run(executable: script, callback: .intervalDidStart, activity: "daily")
        #expect(outcome.succeeded)
        let leftover = try #require(outcome.output.first.flatMap { pid_t($0.text) })
        // Gone, or a zombie waiting for its new parent to reap it.
        let ended = eventually { () -> Bool? in
            let state = (try? String(contentsOfFile: "/proc/\(leftover)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            return state == nil || state == "Z" ? true : nil
        }
        #expect(ended == true)
    }

    @Test("allocating past the address-space limit is reported as a failure for memory")
    func memoryLimit() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "hungry", "exec /usr/bin/python3 -c 'x = bytearray(2**30)'")
        let outcome = await runner(ExtensionLimits(addressSpaceBytes: 512 << 20)).0.run(
            executable: script, callback: .eventDidReachThreshold, activity: "daily", event: "games")
        #expect(outcome.termination == .exited(1))
        #expect(outcome.exceededMemoryLimit)
        #expect(!outcome.succeeded && !outcome.timedOut)
        #expect(outcome.output.contains { $0.stream == .standardError && $0.text.contains("MemoryError") })
    }

    @Test("the same allocation succeeds without the limit, so the limit is what failed it")
    func memoryWithoutLimit() async throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(directory, "hungry", "exec /usr/bin/python3 -c 'x = bytearray(2**30)'")
        let outcome = await runner(ExtensionLimits(addressSpaceBytes: nil)).0.run(
            executable: script, callback: .eventDidReachThreshold, activity: "daily", event: "games")
        #expect(outcome.succeeded && !outcome.exceededMemoryLimit)
    }

    @Test("a missing executable is a start failure with ENOENT, not a crash")
    func missingExecutable() async throws {
        let directory = try ScratchDirectory()
        chmod(directory.path, 0o755)  // as root the run is nobody's, who must see that the file is absent
        let outcome = await runner().0.run(
            executable: directory.path + "/absent", callback: .intervalDidStart, activity: "daily")
        guard case .failedToStart(let error) = outcome.termination else {
            Issue.record("expected a start failure, got \(outcome.termination)")
            return
        }
        #expect(error.code == .extensionStartFailed && error.errno == .noSuchFileOrDirectory)
    }
}
