import LinuxActivity

/// A notification as the freedesktop Notifications specification describes it: what `Notify` is called with.
public struct DesktopNotification: Hashable, Sendable {
    /// A button: the key the server reports in `ActionInvoked` and the label it shows.
    public struct Action: Hashable, Sendable {
        /// Stable key reported back (`close`, `extra-time`); `default` is the click on the notification itself.
        public var key: String
        /// Text on the button.
        public var label: String

        /// Creates an action.
        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// The `urgency` hint (a byte).
    public enum Urgency: UInt8, Hashable, Sendable {
        /// 0: may be shown without interrupting.
        case low = 0
        /// 1: the default.
        case normal = 1
        /// 2: stays until dismissed on most servers.
        case critical = 2
    }

    /// How long the server shows the notification (`expire_timeout`).
    public enum Expiration: Hashable, Sendable {
        /// The server's default (-1).
        case serverDefault
        /// Until the user dismisses it (0).
        case never
        /// This long (milliseconds on the wire).
        case after(Duration)

        /// The `expire_timeout` argument in milliseconds.
        var milliseconds: Int32 {
            switch self {
            case .serverDefault: -1
            case .never: 0
            case .after(let duration):
                Int32(
                    clamping: duration.components.seconds * 1000 + duration.components.attoseconds
                        / 1_000_000_000_000_000)
            }
        }
    }

    /// The title line.
    public var summary: String
    /// The text below it (servers may render a small markup subset).
    public var body: String
    /// An icon name from the theme (`appointment-soon`) or a `file://` URI; empty for none.
    public var icon: String
    /// Buttons, in order.
    public var actions: [Action]
    /// The `urgency` hint.
    public var urgency: Urgency
    /// The `category` hint (`x-screentime.shield`), or nil.
    public var category: String?
    /// The `desktop-entry` hint: the desktop file (without `.desktop`) that the server shows as the sender.
    public var desktopEntry: String?
    /// The `resident` hint: keep the notification after an action is invoked (for a shield that stays).
    public var resident: Bool
    /// How long it is shown.
    public var expiration: Expiration
    /// The notification this one replaces in place (`replaces_id`), or nil for a new one.
    public var replacing: NotificationID?

    /// Creates a notification.
    public init(
        summary: String, body: String = "", icon: String = "", actions: [Action] = [], urgency: Urgency = .normal,
        category: String? = nil, desktopEntry: String? = nil, resident: Bool = false,
        expiration: Expiration = .serverDefault, replacing: NotificationID? = nil
    ) {
        self.summary = summary
        self.body = body
        self.icon = icon
        self.actions = actions
        self.urgency = urgency
        self.category = category
        self.desktopEntry = desktopEntry
        self.resident = resident
        self.expiration = expiration
        self.replacing = replacing
    }

    /// The `Notify` arguments after `app_name`: `replaces_id`, `app_icon`, `summary`, `body`, `actions` as
    /// `[key, label, …]`, `hints` (`a{sv}`, sorted by name) and `expire_timeout`.
    func notifyArguments(applicationName: String) -> [BusValue] {
        var hints: [(String, BusValue)] = [("urgency", .byte(urgency.rawValue))]
        if let category { hints.append(("category", .string(category))) }
        if let desktopEntry { hints.append(("desktop-entry", .string(desktopEntry))) }
        if resident { hints.append(("resident", .boolean(true))) }
        return [
            .string(applicationName), .uint32(replacing?.rawValue ?? 0), .string(icon), .string(summary), .string(body),
            .array(elementSignature: "s", actions.flatMap { [BusValue.string($0.key), .string($0.label)] }),
            .array(
                elementSignature: "{sv}",
                hints.sorted { $0.0 < $1.0 }.map { .dictionaryEntry(.string($0.0), .variant($0.1)) }),
            .int32(expiration.milliseconds),
        ]
    }
}

/// The server's id for a notification it shows, as returned by `Notify`.
public struct NotificationID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `u` the server returned (never 0).
    public var rawValue: UInt32
    /// Wraps a server's id.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The number.
    public var description: String { String(rawValue) }
}
