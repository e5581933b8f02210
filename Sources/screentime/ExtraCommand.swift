import ArgumentParser
import Foundation
import ScreenTimeBus

/// `screentime extra`: more time today on a limit that shields you, Apple's "ignore limit".
struct ExtraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extra",
        abstract: "Give yourself more time today on a limit that shields you.",
        discussion: """
            Lifts the shield of the named limit, or of every limit that shields you now, until you have used its \
            apps for MINUTES more today (Apple's "ignore limit"); the grant shows in `screentime report` as extra \
            time. Asked of your running daemon over D-Bus (org.screentime.Daemon1.GrantExtraTime). A guardian's \
            limits (guardian mode) are theirs to lift: there it is refused.
            """)

    @Option(help: ArgumentHelp("How many more minutes (1 to 1440).", valueName: "minutes"))
    var minutes: Int

    @Option(help: ArgumentHelp("The limit, as the policy names it (default: every limit that shields you now).", valueName: "name"))
    var limit: String?

    @OptionGroup var daemon: DaemonOptions

    func validate() throws {
        guard (1...1440).contains(minutes) else { throw ValidationError("--minutes must be from 1 to 1440") }
    }

    func run() async throws {
        do {
            // Without --system, the daemon an app would reach: your own when it runs, else a guardian's, which says
            // why it won't.
            let endpoint = daemon.system ? daemon.endpoint : DaemonConnection.Endpoint.fromEnvironment()
            let reply = try DaemonConnection(endpoint).call(
                .daemon, "GrantExtraTime", [.string(limit ?? ""), .uint32(UInt32(minutes * 60))])
            guard case .array(_, let granted)? = reply.first else { return }
            let names = granted.compactMap(\.stringValue)
            printText("\(minutes) more minute\(minutes == 1 ? "" : "s") today on \(names.joined(separator: ", "))")
        } catch {
            throw StatusCommand.exit(for: error, in: "screentime extra")
        }
    }
}
