/// The notification that warns of a limit coming up: `"5 minutes left for Games"`.
public struct LimitWarningNotification: Hashable, Sendable {
    /// What the limit covers, as people know it (`Games`, `Minecraft`, `daily`).
    public var subject: String
    /// Use left before the limit.
    public var remaining: Duration
    /// An optional second line (`Screen Time will close it when the time is up.`).
    public var detail: String

    /// Creates a warning.
    public init(subject: String, remaining: Duration, detail: String = "") {
        self.subject = subject
        self.remaining = remaining
        self.detail = detail
    }

    /// The `category` hint warnings carry.
    public static let category = "x-screentime.warning"

    /// `"5 minutes left for Games"`, `"1 minute left for …"`, `"30 seconds left for …"`: whole minutes when the
    /// time left is at least a minute (rounded to the nearest), seconds below that.
    public var summary: String {
        let seconds = max(
            0, remaining.components.seconds + (remaining.components.attoseconds >= 500_000_000_000_000_000 ? 1 : 0))
        if seconds < 60 { return "\(seconds) \(seconds == 1 ? "second" : "seconds") left for \(subject)" }
        let minutes = (seconds + 30) / 60
        return "\(minutes) \(minutes == 1 ? "minute" : "minutes") left for \(subject)"
    }

    /// The notification to show: normal urgency, the server's default expiry, no buttons.
    public var notification: DesktopNotification {
        DesktopNotification(
            summary: summary, body: detail, icon: "appointment-soon", urgency: .normal, category: Self.category)
    }
}
