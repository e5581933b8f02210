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
                Check the guardian's policies as the guardian daemon reads them: /etc/screentime/default.toml and \
                each user's /etc/screentime/users/NAME.toml (only root may be able to write them), and name the \
                users each one covers.
                """)
        var system = false

        func run() async throws {
            if system, file == nil {
                try checkGuardianPolicies()
                return
            }
            let path = file ?? DaemonSettings.defaults(system: system).policyPath
            let role: Policy.Role =
                !system
                ? .individual : path.hasPrefix(GuardianPolicies.usersFolder + "/") ? .guardianUser : .guardianDefault
            guard check(path, role: role) != nil else { throw ExitCode(1) }
        }

        /// Every guardian policy, and whom each covers; exit 1 when any file has a mistake.
        private func checkGuardianPolicies() throws {
            let settings = DaemonSettings.defaults(system: true)
            let files = GuardianPolicies.files(
                defaultPath: settings.policyPath,
                usersFolder: settings.userPoliciesFolder ?? GuardianPolicies.usersFolder)
            var usable: [(file: GuardianPolicies.File, policy: Policy)] = []
            var failed = false
            if files.first?.user != nil {
                printText("\(settings.policyPath): none (only the users with a policy of their own are limited)")
            }
            for file in files {
                if let policy = check(file.path, role: file.role) {
                    usable.append((file, policy))
                } else {
                    failed = true
                }
            }
            let coverage = GuardianPolicies.coverage(
                of: usable, accounts: GuardianPolicies.regularAccounts(), lookUp: GuardianPolicies.account(named:))
            for problem in coverage.problems { printError("\(problem)") }
            for entry in coverage.covered {
                for warning in GuardianPolicies.unknownExemptions(
                    in: entry.policy, file: entry.file.path, lookUp: GuardianPolicies.account(named:))
                {
                    printError("\(warning)")
                }
                let names = entry.users.map(\.name)
                printText(
                    "\(entry.file.path): covers "
                        + (entry.file.user != nil
                            ? names.joined()
                            : "every regular user (uid 1000 and above) without a policy of their own"
                                + (entry.policy.exempt.isEmpty
                                    ? "" : ", except \(entry.policy.exempt.joined(separator: ", "))")
                                + ": " + (names.isEmpty ? "none yet" : names.joined(separator: ", "))))
            }
            if failed || !coverage.problems.isEmpty { throw ExitCode(1) }
        }

        /// Checks one file and prints what it found; returns the policy when it is valid.
        private func check(_ path: String, role: Policy.Role) -> Policy? {
            let diagnosis = Policy.diagnose(fileAt: path, role: role)
            let environment = ProcessInfo.processInfo.environment
            let desktopEntries = DesktopEntryIndex(
                dataDirectories: DesktopEntryIndex.dataDirectories(home: environment["HOME"], environment: environment))
            let unknownApps = Policy.unknownApplicationWarnings(
                diagnosis.applications,
                isKnown: { id in
                    desktopEntries.entries[id.rawValue] != nil
                        || desktopEntries.entry(forExecutable: id.rawValue) != nil
                },
                searchPath: (environment["PATH"] ?? "").split(separator: ":").map(String.init))
            let warnings = (diagnosis.warnings + unknownApps).sorted { ($0.line, $0.column) < ($1.line, $1.column) }
            switch diagnosis.result {
            case .success(let policy):
                for warning in warnings { printError("\(warning)") }
                printText(
                    "\(path): valid: \(policy.limits.count) limits, \(policy.downtimes.count) downtimes, "
                        + "\(policy.alwaysAllowed.count) always-allowed apps"
                        + (warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"))
                return policy
            case .failure(let error):
                let all = PolicyError(problems: error.problems + warnings) ?? error
                printError("\(all)")
                printError("\(path): \(error.problems.count) error\(error.problems.count == 1 ? "" : "s")")
                return nil
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
