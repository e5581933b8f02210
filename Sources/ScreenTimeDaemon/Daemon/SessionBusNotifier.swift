import Logging
import ScreenTimeModel

/// Shows warnings and shields on the daemon user's desktop through `org.freedesktop.Notifications`, and turns the
/// shield's buttons into answers. Connects lazily and again after a failure (the desktop may start after the daemon);
/// a notification that can't be shown is logged, and the shield holds regardless.
public final class SessionBusNotifier: DaemonNotifier {
    private let user: UserID
    private let address: String
    private var logger: Logger
    private var notifier: DesktopNotifier?
    private var retryAfter: ContinuousClock.Instant?
    private var shields: [NotificationID: (user: UserID, limit: String)] = [:]

    /// Notifies `user` (the daemon's own user) on the bus at `address` (default: the user's session bus).
    public init(user: UserID, address: String? = nil, logger: Logger) {
        self.user = user
        self.address = address ?? DesktopNotifier.sessionBusAddress()
        self.logger = logger
    }

    private func connection() -> DesktopNotifier? {
        if let notifier { return notifier }
        if let retryAfter, ContinuousClock.now < retryAfter { return nil }
        do {
            notifier = try DesktopNotifier(address: address)
        } catch {
            logger.warning("cannot reach the session bus for notifications; retrying", metadata: ["error": "\(error)"])
            retryAfter = .now + .seconds(10)
        }
        return notifier
    }

    private func show(_ notification: DesktopNotification) -> NotificationID? {
        guard let notifier = connection() else { return nil }
        do {
            return try notifier.notify(notification)
        } catch {
            logger.warning("notification not shown", metadata: ["error": "\(error)"])
            if error.code == .busUnavailable { self.notifier = nil }
            return nil
        }
    }

    public func warn(user: UserID, title: String, body: String) {
        guard user == self.user else { return }
        var warning = DesktopNotification(summary: title, body: body)
        warning.category = LimitWarningNotification.category
        _ = show(warning)
    }

    public func shield(user: UserID, limit: String, title: String, body: String, extraTimeLabel: String?) {
        guard user == self.user else { return }
        var shield = ShieldNotification(appName: limit, message: body, secondary: extraTimeLabel).notification
        shield.summary = title
        if let id = show(shield) { shields[id] = (user, limit) }
    }

    public func takeAnswers() -> [NotificationAnswer] {
        guard let notifier else { return [] }
        var answers: [NotificationAnswer] = []
        do {
            for event in try notifier.process() {
                switch event {
                case .actionInvoked(let id, let key):
                    guard let shield = shields[id], let action = ShieldNotification.action(forKey: key) else { continue }
                    answers.append(
                        NotificationAnswer(
                            user: shield.user, limit: shield.limit, choice: action == .close ? .close : .extraTime))
                case .closed(let id, _):
                    shields[id] = nil
                }
            }
        } catch {
            logger.warning("lost the notification bus; reconnecting", metadata: ["error": "\(error)"])
            self.notifier = nil
        }
        return answers
    }
}
