import ArgumentParser
import Foundation
import Glibc
import LinuxActivity
import ScreenTimeDaemon
import ScreenTimeModel

/// `screentime now`: every session, what is in front and what runs.
struct NowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now",
        abstract:
            "Show each login session: user, type, seat or tty, active/idle/locked, the app in front, running apps.",
        discussion: """
            With --watch the table is redrawn every second and the seconds each app has been in use since the \
            command started are added up (only while its session is active, unlocked and not idle).
            Exit status: 0 on success, 1 when the token key can't be read or created.
            """)

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Redraw every second until interrupted.")
    var watch = false

    @Option(help: ArgumentHelp("Seconds of input idleness after which a session counts as idle.", valueName: "seconds"))
    var idleTimeout: Int = 180

    @Flag(
        help: """
            See the sessions as a guardian's daemon sees its limited users': nothing they can set decides what \
            counts (logind's idle and locked hints where input is measured, a window named active without the \
            keyboard focus, a compositor or a bus name of theirs, their own GNOME Shell extensions), and only the \
            system's desktop entries name apps.
            """)
    var asGuardian = false

    @OptionGroup var key: KeyOptions

    func validate() throws {
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be more than 0 seconds (default 180)") }
    }

    func run() async throws {
        let tokenizer = try loadTokenizer(key)
        var configuration = Collector.Configuration()
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.focusSourceFactory = DesktopFocus.factory(
            limitedByGuardian: asGuardian, idleTimeout: configuration.idleTimeout)
        configuration.limitedByGuardian = asGuardian
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        var noticeShown = false
        var tally = UsageTally()
        let clock = ContinuousClock()
        var lastTick: ContinuousClock.Instant?
        var deadline = clock.now
        repeat {
            let snapshot = collector.tick(now: Clocks.monotonic(), wallNow: Int64(Date().timeIntervalSince1970))
            let tickTime = clock.now
            if let lastTick { tally.add(snapshot, elapsed: tickTime - lastTick) }
            lastTick = tickTime
            if json {
                try printJSON(snapshot, tally: watch ? tally : nil)
            } else {
                // Redrawn in place on a terminal; into a pipe or a file, one plain block per tick.
                if watch && isatty(STDOUT_FILENO) == 1 { print("\u{1B}[H\u{1B}[2J", terminator: "") }
                if let notice = snapshot.notice, !noticeShown || watch {
                    printError("note: \(notice)")
                    noticeShown = true
                }
                printText(NowTable.render(snapshot, tally: watch ? tally : nil))
            }
            fflush(nil)
            if watch {
                deadline = deadline.advanced(by: .seconds(1))
                try await Task.sleep(until: deadline, clock: clock)
            }
        } while watch
    }

    private func printJSON(_ snapshot: ActivitySnapshot, tally: UsageTally?) throws {
        struct Output: Encodable {
            var logind: Bool
            var notice: String?
            var sessions: [SessionActivity]
            var usageSeconds: [String: [String: Int]]?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = watch ? [.sortedKeys] : [.prettyPrinted, .sortedKeys]
        let output = Output(
            logind: snapshot.logind, notice: snapshot.notice, sessions: snapshot.sessions,
            usageSeconds: tally?.secondsByUser())
        print(jsonText(try encoder.encode(output)))
    }
}

/// Seconds of use per user and app, added up from consecutive snapshots.
struct UsageTally {
    private(set) var seconds: [UserID: [AppID: Duration]] = [:]
    private(set) var names: [AppID: String] = [:]

    /// Credits the time since the previous snapshot to the apps in use now (at most 2 s, so a stall invents nothing).
    mutating func add(_ snapshot: ActivitySnapshot, elapsed: Duration) {
        let credit = min(elapsed, .seconds(2))
        // An app in use in two sessions of one user at once is in use once (as the daemon counts it).
        var inUse: [UserID: [AppID: String]] = [:]
        for session in snapshot.sessions where session.presence == .active {
            switch session.focus {
            case .terminal, .window:
                if let front = session.foreground { inUse[session.user, default: [:]][front.id] = front.name }
            case .fallback:
                for app in session.runningApps { inUse[session.user, default: [:]][app.id] = app.name }
            }
        }
        for (user, apps) in inUse {
            for (id, name) in apps {
                seconds[user, default: [:]][id, default: .zero] += credit
                names[id] = name
            }
        }
    }

    func secondsByUser() -> [String: [String: Int]] {
        var result: [String: [String: Int]] = [:]
        for (user, apps) in seconds {
            result[String(user.rawValue)] = apps.reduce(into: [:]) {
                $0[$1.key.rawValue] = Int($1.value.components.seconds)
            }
        }
        return result
    }
}
