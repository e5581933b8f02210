import Foundation
import ScreenTimeModel

/// One user's usage over a wall-time range: what `screentime report` shows for a day or a week.
public struct UsageReport: Hashable, Sendable {
    /// The longest single stretch of one app in front.
    public struct LongestSession: Hashable, Sendable {
        /// The app and its category.
        public var use: AppUse
        /// Wall time the stretch began.
        public var start: Date
        /// Wall time it ended (so far).
        public var end: Date
        /// Its use on the monotonic clock, whole (not clipped to the range).
        public var duration: Duration
    }

    /// The user.
    public var user: UserID
    /// Start of the range (inclusive).
    public var start: Date
    /// End of the range (exclusive).
    public var end: Date
    /// Use per app. An interval that crosses an edge of the range counts in proportion to its part inside.
    public var durationByApplication: [ApplicationToken: Duration]
    /// Use per category, counted like `durationByApplication`.
    public var durationByCategory: [ActivityCategoryToken: Duration]
    /// How many pickups happened in the range.
    public var pickups: Int
    /// The first pickup in the range.
    public var firstPickup: Date?
    /// The longest stretch of use that overlaps the range.
    public var longestSession: LongestSession?

    /// Total use in the range.
    public var totalDuration: Duration {
        durationByApplication.values.reduce(.zero, +)
    }
}
