/// The notification that stands for a shield on an app: the shield's message with its primary button (close the
/// app) and, when the policy allows it, a secondary one (ask for more time).
///
/// The daemon maps `ShieldNotification.Action` to a `ShieldActionResponse`: `.close` closes the app, `.extraTime`
/// asks for the policy's extra time.
public struct ShieldNotification: Hashable, Sendable {
    /// A shield button, by its stable action key.
    public enum Action: String, Hashable, Sendable, CaseIterable {
        /// The primary button: close the shielded app.
        case close = "close"
        /// The secondary button: ask for more time.
        case extraTime = "extra-time"
    }

    /// The shielded app's name as people know it (`Minecraft`).
    public var appName: String
    /// The shield's message (`You've reached your limit on Games.`).
    public var message: String
    /// The primary button's label.
    public var primary: String
    /// The secondary button's label, or nil for no secondary button.
    public var secondary: String?

    /// Creates the notification for a shield.
    public init(appName: String, message: String, primary: String = "Close App", secondary: String? = "15 more minutes")
    {
        self.appName = appName
        self.message = message
        self.primary = primary
        self.secondary = secondary
    }

    /// The `category` hint shield notifications carry.
    public static let category = "x-screentime.shield"

    /// The action a server reported for `actionKey`, or nil for another key (`default`, a click on the body).
    public static func action(forKey actionKey: String) -> Action? { Action(rawValue: actionKey) }

    /// The notification to show: summary `"<app> is shielded"`, the message as body, the buttons, critical urgency
    /// and no expiry (a shield lasts until it is lifted).
    public var notification: DesktopNotification {
        var actions = [DesktopNotification.Action(key: Action.close.rawValue, label: primary)]
        if let secondary { actions.append(.init(key: Action.extraTime.rawValue, label: secondary)) }
        return DesktopNotification(
            summary: "\(appName) is shielded", body: message, icon: "appointment-missed", actions: actions,
            urgency: .critical, category: Self.category, expiration: .never)
    }
}
