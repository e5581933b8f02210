import Foundation
import LinuxActivity
import Logging
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import Synchronization

/// The extensions an app declares in its desktop entry (`X-ScreenTime-Monitor=` and the others), run by the daemon
/// for that app's activities and shields: as the app's user, never as root, under `ExtensionLimits`, with a token in
/// their environment that makes their own calls to the daemon reach the app's namespace.
extension Daemon {
    /// The client and its own names behind an engine callback of a client's activity; nil for other actions and
    /// for the policy's activities.
    static func clientCallback(of action: ActivityEngine.Action)
        -> (client: BusClient, callback: MonitorCallback, activity: String, event: String?)?
    {
        let callback: (MonitorCallback, DeviceActivityName, ActivityEventName?)
        switch action {
        case .intervalDidStart(let activity): callback = (.intervalDidStart, activity, nil)
        case .intervalDidEnd(let activity): callback = (.intervalDidEnd, activity, nil)
        case .intervalWillStartWarning(let activity): callback = (.intervalWillStartWarning, activity, nil)
        case .intervalWillEndWarning(let activity): callback = (.intervalWillEndWarning, activity, nil)
        case .eventWillReachThresholdWarning(let event, let activity, _):
            callback = (.eventWillReachThresholdWarning, activity, event)
        case .eventDidReachThreshold(let event, let activity, _): callback = (.eventDidReachThreshold, activity, event)
        default: return nil
        }
        guard let (client, name) = BusClient.parse(callback.1) else { return nil }
        return (client, callback.0, name, callback.2?.rawValue)
    }

    /// The executable of `client`'s extension of `kind`, from its desktop entry; nil when it declares none. A
    /// declaration that can't be used is logged (which entry, which key, how to fix it) and gives nil.
    func declaredExtension(_ kind: ScreenTimeExtensionKind, of client: BusClient) -> String? {
        let entry = collector.catalog(for: client.user).desktopEntries.entries[client.app.rawValue]
        switch entry?.screenTimeExtension(kind) {
        case .success(let executable)?: return executable
        case .failure(let error)?:
            logger.error("cannot run a declared extension", metadata: ["error": "\(error)"])
            return nil
        case nil: return nil
        }
    }

    /// Runs the monitor extension `client` declares for one callback of its activity, if it declares one: once the
    /// callbacks before it have been run (`SerialRuns`).
    func runClientMonitor(for action: ActivityEngine.Action) {
        guard let call = Self.clientCallback(of: action),
            let executable = declaredExtension(.monitor, of: call.client)
        else { return }
        runClientExtension(of: call.client, in: clientMonitorRuns) { runner, environment in
            await runner.run(
                executable: executable, callback: call.callback, activity: call.activity, event: call.event,
                environment: environment, user: call.client.user)
        }
    }

    /// Shows the shield of `client`'s store over `application` (newly shielded), with the text its shield
    /// configuration extension gives, or the daemon's own when it declares none or the extension fails.
    func showClientShield(of client: BusClient, over application: ApplicationToken, store: String) {
        let catalog = collector.catalog(for: client.user)
        let label = catalog.label(forToken: application)
        let appName = label?.name ?? "An app"
        let subject = ShieldSubject.clientStore(client, store: store, application: application)
        let fallback = ShieldText(
            subject: subject, title: "\(appName) is shielded",
            body: "\(client.app.rawValue) shields \(appName) (\(store)).")
        guard let executable = declaredExtension(.shieldConfiguration, of: client) else {
            clientShieldTexts.append((client.user, fallback))
            return
        }
        var arguments = ["--shield-configuration", "--application", application.rawValue]
        if let category = label.map({ catalog.tokenizer.token(for: $0.category) }) {
            arguments += ["--category", category.rawValue]
        }
        let texts = clientShieldTexts
        let logger = logger
        runClientExtension(of: client, executable, arguments: arguments, label: "shieldConfiguration") {
            outcome, answer in
            var text = fallback
            if outcome.succeeded, let configuration = try? BusJSON.decode(ShieldText.Configuration.self, from: answer) {
                text = ShieldText(configuration, fallback: fallback)
            } else {
                logger.warning(
                    "the shield configuration extension gave no configuration; showing the default text",
                    metadata: ["extension": "\(executable)", "answer": "\(answer.prefix(200))"])
            }
            texts.append((client.user, text))
        }
    }

    /// Shows the client shields whose text is ready; at each tick.
    func showReadyClientShields() {
        for (user, text) in clientShieldTexts.takeAll() {
            notifier?.shield(
                user: user, subject: text.subject, title: text.title, body: text.body, primaryLabel: text.primaryButton,
                secondaryLabel: text.secondaryButton)
        }
    }

    /// Answers a button of the shield `client`'s store puts over `application`: through the client's shield-action
    /// extension, or, when it declares none, as the system's shield does (the primary button closes the app, the
    /// secondary does nothing). An extension that fails or prints no response leaves the shield as it is.
    func answerClientShield(
        _ action: ShieldAction, of client: BusClient, store: String, over application: ApplicationToken
    ) {
        let answered: @Sendable (ShieldActionResponse) -> ClientShieldResponse = { response in
            ClientShieldResponse(
                client: client, store: store, application: application, action: action, response: response)
        }
        guard let executable = declaredExtension(.shieldAction, of: client) else {
            clientShieldResponses.append(answered(action == .primaryButtonPressed ? .close : .none))
            return
        }
        let arguments = ["--shield-action", "--action", action.rawValue, "--application", application.rawValue]
        let responses = clientShieldResponses
        let logger = logger
        runClientExtension(of: client, executable, arguments: arguments, label: "shieldAction") { outcome, answer in
            guard outcome.succeeded, let response = ShieldActionResponse(rawValue: answer) else {
                logger.warning(
                    "the shield action extension gave no response (close, defer or none); the shield stays",
                    metadata: ["extension": "\(executable)", "answer": "\(answer.prefix(200))"])
                return
            }
            responses.append(answered(response))
        }
    }

    /// Does what the shield-action answers given since the last tick say: closes the app, or shows its shield again.
    func applyClientShieldResponses() {
        for answer in clientShieldResponses.takeAll() {
            let metadata: Logger.Metadata = [
                "client": "\(answer.client)", "store": "\(answer.store)", "action": "\(answer.action)",
                "response": "\(answer.response)",
            ]
            let shielded =
                clients.stores[answer.client]?[answer.store]?.applications?.contains(answer.application) ?? false
            switch answer.response {
            case .close:
                let app = collector.catalog(for: answer.client.user).label(forToken: answer.application)?.id
                if let app, shielded { runtime.requestClose(.app(app, of: answer.client.user)) }
                logger.notice("the shield's app is closed, as its action extension answered", metadata: metadata)
            case .defer:
                if shielded { showClientShield(of: answer.client, over: answer.application, store: answer.store) }
                logger.notice("the shield is shown again, as its action extension answered", metadata: metadata)
            case .none:
                logger.info("the shield stays, as its action extension answered", metadata: metadata)
            }
        }
    }

    /// Runs `client`'s extension `executable` with `arguments`, as the client's user, off the loop's thread;
    /// `finished` gets the outcome and the extension's answer: the last line it printed on standard output
    /// (`ExtensionEntry` prints it after whatever the extension printed itself), trimmed.
    private func runClientExtension(
        of client: BusClient, _ executable: String, arguments: [String], label: String,
        finished: @escaping @Sendable (ExtensionOutcome, String) -> Void
    ) {
        runClientExtension(of: client) { runner, environment in
            let outcome = await runner.run(
                executable: executable, arguments: arguments, environment: environment, user: client.user, label: label)
            let printed = outcome.output.filter { $0.stream == .standardOutput }.map(\.text)
            let answer = printed.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            finished(outcome, answer.trimmingCharacters(in: .whitespaces))
            return outcome
        }
    }

    /// Runs `run` off the loop's thread (after what `serial` holds of `client`, when given) with a runner under the
    /// daemon's extension limits and an environment that holds a token of `client`'s namespace, revoked when it
    /// returns: the extension's own calls to the daemon reach the client's activities and stores.
    private func runClientExtension(
        of client: BusClient, in serial: SerialRuns<BusClient>? = nil,
        _ run: @escaping @Sendable (ExtensionRunner, [String: String]) async -> ExtensionOutcome
    ) {
        let runner = ExtensionRunner(limits: settings.extensionLimits, logger: logger)
        let tokens = extensionTokens
        let token = tokens.issue(for: client)
        var environment = ExtensionRunner.inheritedEnvironment()
        environment[ExtensionTokens.variable] = token
        let body: @Sendable () async -> Void = { [environment] in
            _ = await run(runner, environment)
            tokens.revoke(token)
        }
        if let serial { serial.run(client, body) } else { Task.detached(operation: body) }
    }
}

/// The words of a client's shield notification, and the shield they stand for.
struct ShieldText: Sendable {
    var subject: ShieldSubject
    var title: String
    var body: String
    var primaryButton: String?
    var secondaryButton: String?

    /// The part of `ManagedSettings.ShieldConfiguration`'s JSON the notification shows.
    struct Configuration: Decodable {
        struct Label: Decodable { var text: String }
        var title: Label?
        var subtitle: Label?
        var primaryButtonLabel: Label?
        var secondaryButtonLabel: Label?
    }

    init(subject: ShieldSubject, title: String, body: String) {
        self.subject = subject
        self.title = title
        self.body = body
    }

    init(_ configuration: Configuration, fallback: ShieldText) {
        subject = fallback.subject
        title = configuration.title?.text ?? fallback.title
        body = configuration.subtitle?.text ?? fallback.body
        primaryButton = configuration.primaryButtonLabel?.text
        secondaryButton = configuration.secondaryButtonLabel?.text
    }
}

/// What a client's shield-action extension answered for a button of one of its shields.
struct ClientShieldResponse: Sendable {
    var client: BusClient
    var store: String
    var application: ApplicationToken
    var action: ShieldAction
    var response: ShieldActionResponse
}

/// Values handed from the extensions' threads to the engine loop's, taken at each tick.
final class HandOff<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    func append(_ element: Element) { elements.withLock { $0.append(element) } }

    func takeAll() -> [Element] {
        elements.withLock { elements in
            defer { elements = [] }
            return elements
        }
    }
}
