/// What the daemon records as the day happens besides usage and pickups: the labels of the apps it saw, the
/// notifications it sent and those apps sent, what it shielded and for how long, and each limit's allowance for the day. Written in the
/// same transaction as the usage of the same flush.
public struct DayRecords: Hashable, Sendable {
    public var appLabels: [AppLabelRecord] = []
    public var notifications: [NotificationRecord] = []
    /// Notifications apps sent, as the daemon saw them on the session bus.
    public var appNotifications: [AppNotificationRecord] = []
    /// Shield intervals, new or extended (the latest of the same user, kind, token and start wins).
    public var shieldIntervals: [ShieldIntervalRecord] = []
    public var dailyLimits: [DailyLimitRecord] = []

    /// Creates an empty set of records.
    public init() {}

    /// How many rows wait to be written.
    public var count: Int {
        appLabels.count + notifications.count + appNotifications.count + shieldIntervals.count + dailyLimits.count
    }

    /// Whether nothing waits.
    public var isEmpty: Bool { count == 0 }

    /// Adds `other`'s rows after these. A shield interval already waiting (same user, kind, token and start) is
    /// replaced by its later extension: while the ledger can't be written, every flush extends each open shield, and
    /// those would pile up by the second.
    public mutating func append(_ other: DayRecords) {
        appLabels += other.appLabels
        notifications += other.notifications
        appNotifications += other.appNotifications
        for interval in other.shieldIntervals {
            if let index = shieldIntervals.lastIndex(where: {
                ($0.uid, $0.kind, $0.token, $0.startMilliseconds)
                    == (interval.uid, interval.kind, interval.token, interval.startMilliseconds)
            }) {
                shieldIntervals[index] = interval
            } else {
                shieldIntervals.append(interval)
            }
        }
        dailyLimits += other.dailyLimits
    }
}
