import Foundation
import LinuxActivity
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

    /// Runs the monitor extension `client` declares for one callback of its activity, if it declares one.
    func runClientMonitor(for action: ActivityEngine.Action) {
        guard let call = Self.clientCallback(of: action),
            let executable = declaredExtension(.monitor, of: call.client)
        else { return }
        let runner = ExtensionRunner(limits: settings.extensionLimits, logger: logger)
        let tokens = extensionTokens
        let token = tokens.issue(for: call.client)
        var environment = ExtensionRunner.inheritedEnvironment()
        environment[ExtensionTokens.variable] = token
        let user = call.client.user
        Task.detached {
            _ = await runner.run(
                executable: executable, callback: call.callback, activity: call.activity, event: call.event,
                environment: environment, user: user)
            tokens.revoke(token)
        }
    }

    /// Shows the shield of `client`'s store over `application` (newly shielded), with the text its shield
    /// configuration extension gives, or the daemon's own when it declares none or the extension fails.
    func showClientShield(of client: BusClient, over application: ApplicationToken, store: String) {
        let catalog = collector.catalog(for: client.user)
        let label = catalog.label(forToken: application)
        let appName = label?.name ?? "An app"
        let fallback = ShieldText(
            title: "\(appName) is shielded", body: "\(client.app.rawValue) shields \(appName) (\(store)).",
            secondaryButton: nil)
        guard let executable = declaredExtension(.shieldConfiguration, of: client) else {
            clientShieldTexts.append(user: client.user, fallback)
            return
        }
        var arguments = ["--shield-configuration", "--application", application.rawValue]
        if let category = label.map({ catalog.tokenizer.token(for: $0.category) }) {
            arguments += ["--category", category.rawValue]
        }
        let runner = ExtensionRunner(limits: settings.extensionLimits, logger: logger)
        let tokens = extensionTokens
        let token = tokens.issue(for: client)
        var environment = ExtensionRunner.inheritedEnvironment()
        environment[ExtensionTokens.variable] = token
        let texts = clientShieldTexts
        let logger = logger
        Task.detached {
            let outcome = await runner.run(
                executable: executable, arguments: arguments, environment: environment, user: client.user,
                label: "shieldConfiguration")
            tokens.revoke(token)
            let printed = outcome.output.filter { $0.stream == .standardOutput }.map(\.text).joined()
            var text = fallback
            if outcome.succeeded, let configuration = try? BusJSON.decode(ShieldText.Configuration.self, from: printed) {
                text = ShieldText(configuration, fallback: fallback)
            } else {
                logger.warning(
                    "the shield configuration extension gave no configuration; showing the default text",
                    metadata: ["extension": "\(executable)", "output": "\(printed.prefix(200))"])
            }
            texts.append(user: client.user, text)
        }
    }

    /// Shows the client shields whose text is ready; at each tick.
    func showReadyClientShields() {
        for (user, text) in clientShieldTexts.takeAll() {
            notifier?.shield(
                user: user, limit: text.title, title: text.title, body: text.body, extraTimeLabel: text.secondaryButton)
        }
    }
}

/// The words of a client's shield notification.
struct ShieldText: Sendable {
    var title: String
    var body: String
    var secondaryButton: String?

    /// The part of `ManagedSettings.ShieldConfiguration`'s JSON the notification shows.
    struct Configuration: Decodable {
        struct Label: Decodable { var text: String }
        var title: Label?
        var subtitle: Label?
        var secondaryButtonLabel: Label?
    }

    init(title: String, body: String, secondaryButton: String?) {
        self.title = title
        self.body = body
        self.secondaryButton = secondaryButton
    }

    init(_ configuration: Configuration, fallback: ShieldText) {
        title = configuration.title?.text ?? fallback.title
        body = configuration.subtitle?.text ?? fallback.body
        secondaryButton = configuration.secondaryButtonLabel?.text
    }
}

/// Client shields whose text is ready, handed from the extensions' threads to the engine loop's.
final class ShieldTextQueue: Sendable {
    private let texts = Mutex<[(UserID, ShieldText)]>([])

    func append(user: UserID, _ text: ShieldText) { texts.withLock { $0.append((user, text)) } }

    func takeAll() -> [(UserID, ShieldText)] {
        texts.withLock { texts in
            defer { texts = [] }
            return texts
        }
    }
}
