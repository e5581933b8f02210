import ArgumentParser
import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeBus
import ScreenTimeDaemon
import ScreenTimeModel

/// `screentime agent`: the per-user agent of guardian mode (the user unit `screentime-agent.service`).
///
/// The guardian's daemon runs as root and shows nothing on anyone's desktop: it broadcasts warnings and shields on
/// the system bus, and this agent, running as the user in their session, shows those meant for its user as desktop
/// notifications and turns the shield's button into a call of its user (`AskForTime`, or `AnswerShield` for the
/// policy's own extra time). A guardian's agent also shows the requests users file, and a user's the answers.
/// The agent is trusted for nothing: what it sends is checked as any call of that user is, and the daemon counts
/// and shields without it.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Show a guardian's warnings, shields and requests in this session (the user unit runs it).",
        discussion: """
            Listens to the guardian daemon (org.screentime.Daemon1 on the system bus) and shows what concerns \
            you through the desktop's notification server; a shield's "Ask for more time" files a request \
            (like screentime ask). A guardian (root, or a member of sudo, admin or wheel) also sees each request \
            users file. Runs until stopped; the daemon keeps counting and shielding without it.
            """)

    @Option(help: ArgumentHelp("Minutes asked for by a shield's button.", valueName: "minutes"))
    var askMinutes: Int = 15

    func validate() throws {
        guard (1...1440).contains(askMinutes) else { throw ValidationError("--ask-minutes must be from 1 to 1440") }
    }

    func run() async throws {
        LoggingSetup.bootstrap(identifier: "screentime-agent", level: .info)
        let logger = Logger(label: "screentime-agent")
        let user = UserID(getuid())
        // The agent's thread sleeps until the guardian daemon signals or a button is pressed.
        let wakeup: WakeupDescriptor
        do { wakeup = try WakeupDescriptor() } catch {
            printError("screentime agent: cannot make a wake-up pipe: \(error)")
            throw ExitCode(1)
        }
        let notifier = SessionBusNotifier(user: user, logger: logger, answered: { wakeup.signal() })
        let agent = Agent(
            user: user, guardian: Guardians.include(getuid()), askSeconds: UInt32(askMinutes * 60), notifier: notifier,
            logger: logger)
        let bus: Bus
        do {
            bus = try Bus.system()
            try bus.addMatch(
                "type='signal',sender='\(ScreenTimeBusName.service)',"
                    + "interface='\(ScreenTimeBusName.Interface.daemon.rawValue)'"
            ) { agent.receive($0) }
        } catch {
            printError("screentime agent: cannot listen on the system bus: \(error)")
            throw ExitCode(1)
        }
        logger.info("listening to the guardian daemon", metadata: ["guardian": "\(agent.guardian)"])
        async let shown: Void = notifier.run()
        DetachedThread.start(name: "agent") { agent.serve(bus, wakeup: wakeup) }
        await shown
    }
}

/// The agent's state: what it showed and what the buttons mean. Used by the bus thread only (and `receive`, which
/// sd-bus calls on it). @unchecked Sendable: see above.
private final class Agent: @unchecked Sendable {
    let user: UserID
    let guardian: Bool
    let askSeconds: UInt32
    let notifier: SessionBusNotifier
    let logger: Logger
    /// Whether each limit's shield button asks the guardian (else it takes the policy's extra time).
    private var asks: [String: Bool] = [:]
    private let daemon = DaemonConnection(.system)

    init(user: UserID, guardian: Bool, askSeconds: UInt32, notifier: SessionBusNotifier, logger: Logger) {
        self.user = user
        self.guardian = guardian
        self.askSeconds = askSeconds
        self.notifier = notifier
        self.logger = logger
    }

    /// Reads signals, and relays the buttons pressed (`wakeup` says one was), until the bus is lost.
    func serve(_ bus: Bus, wakeup: WakeupDescriptor) {
        let descriptors: DescriptorSet
        do { descriptors = try DescriptorSet([bus.fileDescriptor, wakeup.fileDescriptor]) } catch {
            logger.error("cannot wait on the system bus (epoll)", metadata: ["error": "\(error)"])
            Glibc.exit(1)
        }
        while true {
            do {
                try bus.processPending()
            } catch {
                logger.error("lost the system bus", metadata: ["error": "\(error)"])
                Glibc.exit(1)
            }
            relayAnswers()
            if descriptors.wait(timeoutMilliseconds: -1) & 0b10 != 0 { wakeup.drain() }
        }
    }

    func receive(_ message: BusMessage) {
        let arguments = message.readAll()
        switch message.member {
        case "Notification":
            let text = arguments.compactMap(\.stringValue)
            guard arguments.first?.uint32Value == user.rawValue, text.count == 5 else { return }
            let (kind, limit, title, body, secondary) = (text[0], text[1], text[2], text[3], text[4])
            if kind == "warning" {
                notifier.warn(user: user, title: title, body: body)
            } else {
                asks[limit] = kind == "shield-ask"
                // Each user closes their own apps: the primary button only dismisses.
                notifier.shield(
                    user: user, subject: .limit(limit), title: title, body: body, primaryLabel: "OK",
                    secondaryLabel: secondary)
            }
        case "RequestFiled":
            guard guardian, let request = decode(arguments) else { return }
            notifier.warn(
                user: user,
                title: "\(request.userName) asks for \(request.seconds / 60) more minutes",
                body: (request.reason.isEmpty ? "" : "“\(request.reason)” — ")
                    + "screentime approve \(request.id), or screentime deny \(request.id)")
        case "RequestAnswered":
            guard let request = decode(arguments), request.user == user.rawValue else { return }
            notifier.warn(
                user: user,
                title: request.state == .approved
                    ? "\((request.grantedSeconds ?? 0) / 60) more minutes today" : "No more time today",
                body: request.state == .approved ? "Your guardian approved your request." : "Your guardian said no.")
        default:
            break
        }
    }

    private func decode(_ arguments: [BusValue]) -> TimeRequest? {
        arguments.first?.stringValue.flatMap { try? BusJSON.decode(TimeRequest.self, from: $0) }
    }

    private func relayAnswers() {
        for answer in notifier.takeAnswers() where answer.choice == .extraTime {
            guard case .limit(let limit) = answer.subject else { continue }
            do throws(ScreenTimeBusError) {
                if asks[limit] ?? true {
                    let reply = try daemon.call(
                        .daemon, "AskForTime", [.uint32(askSeconds), .string("asked from the shield of \(limit)")])
                    let id = reply.first?.uint32Value ?? 0
                    notifier.warn(
                        user: user, title: "Asked for \(askSeconds / 60) more minutes",
                        body: "Request \(id): your guardian will answer.")
                } else {
                    _ = try daemon.call(.daemon, "AnswerShield", [.string(limit), .boolean(false)])
                }
            } catch {
                notifier.warn(user: user, title: "Could not ask for more time", body: error.message)
            }
        }
    }
}
