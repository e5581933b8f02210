import ArgumentParser
import Foundation
import ScreenTimeDaemon

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
                printText("\(path): valid: \(policy.limits.count) limits, \(policy.downtimes.count) downtimes, "
                    + "\(policy.alwaysAllowed.count) always-allowed apps")
            } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
        }
    }

    /// `screentime policy example`.
    struct Example: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a commented example policy.")
        func run() async throws { print(Policy.commentedExample, terminator: "") }
    }
}
