import CLinux
import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// After a restart, a process that had inherited its app from a parent gone since is that app again when the last
/// run knew it as that app (held by its enforcer, or written down with the program it ran): real processes, a
/// launcher that exits once it has started the game.
@Suite(.serialized) struct RecalledAppTests {
    let tokenizer = Tokenizer(key: Array(repeating: 5, count: 32))

    @Test func aHeldProcessWhoseParentExitedIsTheAppItWasHeldAsAfterARestart() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-recall")
        let game = "\(directory)/bin/launched-game"
        try writeFile("\(directory)/bin/.keep", "")
        try copyFile("/bin/sleep", to: game)
        // The launcher starts two games and exits: both are orphans now, known only by their program.
        let script = "\(game) 600 & echo $! > \(directory)/first; \(game) 600 & echo $! > \(directory)/second"
        var shell: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        clinux_spawn_actions_close_from(&actions, 3)
        try #require(posix_spawn(&shell, "/bin/sh", &actions, nil, &argv, nil) == 0)
        var status: Int32 = 0
        waitpid(shell, &status, 0)
        let pids = try ["first", "second"].map { name in
            try #require(
                FileSystem.readText("\(directory)/\(name)").flatMap {
                    pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
                })
        }
        defer {
            for pid in pids { kill(pid, SIGKILL) }
        }
        // The shell may exit before its children have run the game (each is a copy of the shell until its exec).
        let deadline = ContinuousClock.now + .seconds(10)
        while pids.contains(where: { FileSystem.readLink("/proc/\($0)/exe") != game }), ContinuousClock.now < deadline {
            usleep(10_000)
        }
        let stats = try pids.map { pid in
            try #require(FileSystem.readText("/proc/\(pid)/stat").flatMap { ProcessStat(parsing: Array($0.utf8)) })
        }
        #expect(stats.allSatisfy { $0.parent.rawValue != getpid() })
        var configuration = Collector.Configuration()
        configuration.environment = ["XDG_DATA_HOME": "\(directory)/data", "XDG_DATA_DIRS": "\(directory)/system"]
        let launcher = AppID("org.example.Launcher")

        // The first was held as the launcher's app; the second is named with another start time (a reused pid).
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { collector.close() }
        collector.recall([
            stats[0].identity: RecalledApp(app: launcher),
            ProcessIdentity(pid: stats[1].pid, startTime: stats[1].startTime + 1): RecalledApp(app: launcher),
        ])
        collector.refreshProcesses()
        #expect(collector.table.entries[stats[0].pid]?.app == ResolvedApp(id: launcher, source: .inherited))
        #expect(
            collector.table.entries[stats[1].pid]?.app == ResolvedApp(id: AppID("launched-game"), source: .executable))
        // Resolved again (its user's desktop entries changed): still the launcher's, though no parent says so now.
        collector.forgetCatalogs(of: [UserID(getuid())])
        #expect(collector.table.entries[stats[0].pid]?.app == ResolvedApp(id: launcher, source: .inherited))
        // What a restart would recall: the first, with the program it runs.
        let running = collector.table.entries[stats[0].pid]?.executable
        #expect(collector.inheritedApps()[stats[0].identity] == RecalledApp(app: launcher, program: running))
        #expect(collector.inheritedApps()[stats[1].identity] == nil)

        // Kept with its program (as a restart reads them back): recalled while it runs that program, and not once it
        // runs another. Without a recall (or once the first reading is done) each is its program.
        let fresh = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { fresh.close() }
        fresh.recall([
            stats[0].identity: RecalledApp(app: launcher, program: running),
            stats[1].identity: RecalledApp(app: launcher, program: "/usr/bin/another-program"),
        ])
        fresh.refreshProcesses()
        #expect(fresh.table.entries[stats[0].pid]?.app == ResolvedApp(id: launcher, source: .inherited))
        #expect(fresh.table.entries[stats[1].pid]?.app == ResolvedApp(id: AppID("launched-game"), source: .executable))
        let later = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { later.close() }
        later.refreshProcesses()
        #expect(later.table.entries[stats[0].pid]?.app == ResolvedApp(id: AppID("launched-game"), source: .executable))
    }
}
