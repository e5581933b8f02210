import ArgumentParser
import Foundation
import ScreenTimeBus
import ScreenTimeModel

/// The guardian's daemon, where requests for more time live: the system bus (or `$SCREENTIME_BUS_ADDRESS`).
private func guardianDaemon() -> DaemonConnection {
    DaemonConnection(DaemonOptions.endpoint(system: true))
}

/// `screentime ask`: a limited user asks the guardian for more time.
struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask your guardian for more time today.",
        discussion: """
            Files a request with the guardian's daemon (guardian mode, org.screentime.Daemon1.AskForTime; polkit \
            action org.screentime.ask). The guardian sees it in `screentime requests` (and as a notification where \
            the agent runs in their session) and answers with `screentime approve` or `screentime deny`; an \
            approved request lifts the limits that shield you for that many more minutes today. Prints the \
            request's number.
            """)

    @Option(help: ArgumentHelp("How many more minutes (1 to 1440).", valueName: "minutes"))
    var minutes: Int

    @Argument(help: ArgumentHelp("Why, in a few words (shown to the guardian).", valueName: "reason"))
    var reason: [String] = []

    func validate() throws {
        guard (1...1440).contains(minutes) else { throw ValidationError("--minutes must be from 1 to 1440") }
    }

    func run() async throws {
        do {
            let reply = try guardianDaemon().call(
                .daemon, "AskForTime", [.uint32(UInt32(minutes * 60)), .string(reason.joined(separator: " "))])
            guard case .uint32(let id)? = reply.first else { return }
            printText(
                "request \(id): \(minutes) more minute\(minutes == 1 ? "" : "s") asked for; your guardian will answer")
        } catch {
            throw StatusCommand.exit(for: error, in: "screentime ask")
        }
    }
}

/// `screentime requests`: today's requests for more time.
struct RequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "List today's requests for more time (guardians: everyone's; others: their own).",
        discussion: "Asked of the guardian's daemon (org.screentime.Daemon1.Requests).")

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let requests: [TimeRequest]
        do {
            requests = try BusJSON.decode(
                [TimeRequest].self, from: try guardianDaemon().callForString(.daemon, "Requests"))
        } catch {
            throw StatusCommand.exit(for: error, in: "screentime requests")
        }
        if json {
            try printJSON(requests)
            return
        }
        guard !requests.isEmpty else {
            printText("no requests today")
            return
        }
        let time = DateFormatter()
        time.dateFormat = "HH:mm"
        for request in requests {
            let state =
                switch request.state {
                case .pending: "waiting"
                case .approved: "approved, \((request.grantedSeconds ?? 0) / 60) min"
                case .denied: "denied"
                }
            printText(
                "\(request.id)  \(time.string(from: request.filedAt))  "
                    + "\(request.userName.escapingControlCharacters())  "
                    + "\(request.seconds / 60) min  \(state)"
                    + (request.reason.isEmpty ? "" : "  \"\(request.reason.escapingControlCharacters())\""))
        }
    }
}

/// `screentime approve` and `screentime deny`: the guardian answers.
struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a request for more time (guardian: root, or polkit's org.screentime.manage).",
        discussion: """
            Gives the user the time asked for (or --minutes) more today on the limits that shield them now; a \
            request whose user no limit shields stays waiting. Nobody approves their own request.
            """)

    @Argument(help: ArgumentHelp("The request's number, from `screentime requests`.", valueName: "id"))
    var id: UInt32?

    @Flag(help: "Every waiting request.")
    var all = false

    @Option(help: ArgumentHelp("Minutes to give instead of what was asked for (1 to 1440).", valueName: "minutes"))
    var minutes: Int?

    func validate() throws {
        guard (id != nil) != all else { throw ValidationError("name one request's id, or --all") }
        if let minutes, !(1...1440).contains(minutes) { throw ValidationError("--minutes must be from 1 to 1440") }
    }

    func run() async throws {
        try answer(
            id: all ? 0 : id ?? 0, approve: true, seconds: UInt32((minutes ?? 0) * 60), command: "screentime approve")
    }
}

struct DenyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deny",
        abstract: "Deny a request for more time (guardian: root, or polkit's org.screentime.manage).")

    @Argument(help: ArgumentHelp("The request's number, from `screentime requests`.", valueName: "id"))
    var id: UInt32?

    @Flag(help: "Every waiting request.")
    var all = false

    func validate() throws {
        guard (id != nil) != all else { throw ValidationError("name one request's id, or --all") }
    }

    func run() async throws {
        try answer(id: all ? 0 : id ?? 0, approve: false, seconds: 0, command: "screentime deny")
    }
}

/// `Daemon1.AnswerRequest`, and what it answered, a line each.
private func answer(id: UInt32, approve: Bool, seconds: UInt32, command: String) throws {
    do {
        // polkit may first have the guardian authenticate: the daemon gives them up to 5 minutes.
        let reply = try guardianDaemon().call(
            .daemon, "AnswerRequest", [.uint32(id), .boolean(approve), .uint32(seconds)], timeout: .seconds(310))
        guard case .array(_, let lines)? = reply.first else { return }
        for line in lines.compactMap(\.stringValue) { printText(line) }
    } catch {
        throw StatusCommand.exit(for: error, in: command)
    }
}
