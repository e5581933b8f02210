import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeDaemon
import ScreenTimeModel

/// `screentime policy`: the policy file.
struct PolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy", abstract: "Check or show the policy file.",
        subcommands: [Check.self, Example.self])

    /// `screentime policy check`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the policy file; print each error as file:line:column: message.",
            discussion: "Exit status: 0 when the file is valid, 1 when it is not (the daemon would refuse it too).")

        @Option(help: ArgumentHelp("The policy file (default: the daemon's).", valueName: "path"))
        var file: String?

        @Flag(help: "Check the guardian (system) policy, /etc/screentime/policy.toml.")
        var system = false

        func run() async throws {
            let path = file ?? DaemonSettings.defaults(system: system).policyPath
            do {
                let policy = try Policy.load(from: path)
                for app in unknownApps(in: policy) {
                    printError("\(path): warning: app `\(app)` matches no desktop entry and no executable on PATH")
                }
                printText("\(path): valid: \(policy.limits.count) limits, \(policy.downtimes.count) downtimes, "
                    + "\(policy.alwaysAllowed.count) always-allowed apps")
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
        }
    }

    /// The apps a policy names that nothing here is known by: a typo, or an app not installed (yet).
    static func unknownApps(in policy: Policy) -> [AppID] {
        let environment = ProcessInfo.processInfo.environment
        let index = DesktopEntryIndex(
            dataDirectories: DesktopEntryIndex.dataDirectories(home: environment["HOME"], environment: environment))
        let path: [String] =
            (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/games", "/usr/local/games"]
        let named = policy.alwaysAllowed + policy.limits.flatMap(\.applications) + policy.downtimes.flatMap(\.allowed)
        var seen: Set<AppID> = []
        return named.filter { app in
            guard seen.insert(app).inserted else { return false }
            if index.entries[app.rawValue] != nil { return false }
            return !path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(app.rawValue)") }
        }
    }

    /// `screentime policy example`.
    struct Example: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a commented example policy.")
        func run() async throws { print(Policy.commentedExample, terminator: "") }
    }
}
