import ScreenTimeModel

/// What the daemon tells people and how they answer: warnings, and shields with a close button and, when the
/// policy offers it, an extra-time button.
public protocol DaemonNotifier: AnyObject {
    /// A warning ("5 minutes left for games").
    func warn(user: UserID, title: String, body: String)
    /// A shield over what `subject` names; its primary button is labelled `primaryLabel` ("Close App" when nil), and
    /// `secondaryLabel` is nil for no secondary button (no more time can be asked for).
    func shield(user: UserID, subject: ShieldSubject, title: String, body: String, primaryLabel: String?, secondaryLabel: String?)
    /// Answers given since the last call.
    func takeAnswers() -> [NotificationAnswer]
}

/// What a shield notification stands for, and so who answers its buttons.
public enum ShieldSubject: Hashable, Sendable {
    /// A limit of the policy, by name: the primary button closes the limit's apps, the secondary asks for the
    /// policy's extra time.
    case limit(String)
    /// An app that a client's settings store shields: the client's shield-action extension answers the buttons.
    case clientStore(BusClient, store: String, application: ApplicationToken)
}

/// A person's answer to a shield notification.
public struct NotificationAnswer: Hashable, Sendable {
    public enum Choice: Hashable, Sendable {
        /// The primary button: close the app.
        case close
        /// The secondary button: the policy's extra minutes, or what a client's extension makes of it.
        case extraTime
    }

    public var user: UserID
    public var subject: ShieldSubject
    public var choice: Choice

    public init(user: UserID, subject: ShieldSubject, choice: Choice) {
        self.user = user
        self.subject = subject
        self.choice = choice
    }

    /// The button pressed, as a shield-action extension is told it.
    public var action: ShieldAction { choice == .close ? .primaryButtonPressed : .secondaryButtonPressed }
}
