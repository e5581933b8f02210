import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeDaemon

/// `screentime policy`: the policy file.
struct PolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy", abstract: "Check or show the policy file.",
        subcommands: [Check.self, Example.self])

    /// `screentime policy check`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the policy file; print every error as file:line:column: message.",
            discussion: """
                Also warns (file:line:column: warning: …) about each app that no desktop entry and no executable \
                on PATH provides, most likely a misspelt name. Exit status: 0 when the file is valid (warnings \
                or not), 1 when it is not (the daemon would refuse it too).
                """)

        @Option(help: ArgumentHelp("The policy file (default: the daemon's).", valueName: "path"))
        var file: String?

        @Flag(
            help: """
                Check the guardian (system) policy, /etc/screentime/default.toml, as the guardian daemon reads it \
                (only root may be able to write it), and name the users it covers.
                """)
        var system = false

        func run() async throws {
            let path = file ?? DaemonSettings.defaults(system: system).policyPath
            let diagnosis = system ? Policy.diagnoseGuardian(fileAt: path) : Policy.diagnose(fileAt: path)
            let environment = ProcessInfo.processInfo.environment
            let desktopEntries = DesktopEntryIndex(
                dataDirectories: DesktopEntryIndex.dataDirectories(home: environment["HOME"], environment: environment))
            let warnings = Policy.unknownApplicationWarnings(
                diagnosis.applications,
                isKnown: { id in
                    desktopEntries.entries[id.rawValue] != nil
                        || desktopEntries.entry(forExecutable: id.rawValue) != nil
                },
                searchPath: (environment["PATH"] ?? "").split(separator: ":").map(String.init))
            switch diagnosis.result {
            case .success(let policy):
                for warning in warnings { printError("\(warning)") }
                printText("\(path): valid: \(policy.limits.count) limits, \(policy.downtimes.count) downtimes, "
                    + "\(policy.alwaysAllowed.count) always-allowed apps"
                    + (warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"))
                if system {
                    let users = Policy.regularUsers()
                    printText("\(path): covers every regular user (uid 1000 and above): "
                        + (users.isEmpty ? "none yet" : users.joined(separator: ", ")))
                }
            case .failure(let error):
                let all = PolicyError(problems: error.problems + warnings) ?? error
                printError("\(all)")
                printError("\(path): \(error.problems.count) error\(error.problems.count == 1 ? "" : "s")")
                throw ExitCode(1)
            }
        }
    }

    /// `screentime policy example`.
    struct Example: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a commented example policy.")
        func run() async throws {
            let text = Policy.commentedExample
            print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
        }
    }
}
