import ScreenTimeModel

/// What the daemon tells people and how they answer: warnings, and shields with a close button and, when the
/// policy offers it, an extra-time button.
public protocol DaemonNotifier: AnyObject {
    /// A warning ("5 minutes left for games").
    func warn(user: UserID, title: String, body: String)
    /// A shield; `extraTimeLabel` is nil when no more time can be asked for.
    func shield(user: UserID, limit: String, title: String, body: String, extraTimeLabel: String?)
    /// Answers given since the last call.
    func takeAnswers() -> [NotificationAnswer]
}

/// A person's answer to a shield notification.
public struct NotificationAnswer: Hashable, Sendable {
    public enum Choice: Hashable, Sendable {
        /// The primary button: close the app.
        case close
        /// The secondary button: the policy's extra minutes.
        case extraTime
    }

    public var user: UserID
    public var limit: String
    public var choice: Choice

    public init(user: UserID, limit: String, choice: Choice) {
        self.user = user
        self.limit = limit
        self.choice = choice
    }
}
