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
    /// Screen time in the range: the time any app was in use, each instant once. Where several apps count at once
    /// (a session whose focus can't be read counts every running app; two sessions of one user at once) it is less
    /// than the sum of the apps' times, which would exceed the wall clock.
    public var totalDuration: Duration
}

extension UsageReport {
    /// The report of several consecutive ranges (the days of a week) as one, from the first's start to the last's
    /// end: times and pickups add up (the ranges do not overlap, so each union is the sum of its parts), the
    /// first pickup is the earliest, the longest session the longest (the earlier of two as long).
    public init?(merging reports: [UsageReport]) {
        guard let first = reports.first, let last = reports.last else { return nil }
        self = first
        end = last.end
        for report in reports.dropFirst() {
            durationByApplication.merge(report.durationByApplication, uniquingKeysWith: +)
            durationByCategory.merge(report.durationByCategory, uniquingKeysWith: +)
            totalDuration += report.totalDuration
            pickups += report.pickups
            if let time = report.firstPickup, firstPickup.map({ time < $0 }) ?? true { firstPickup = time }
            if let other = report.longestSession {
                if let current = longestSession,
                    current.duration > other.duration
                        || (current.duration == other.duration && current.start <= other.start)
                {
                    continue
                }
                longestSession = other
            }
        }
    }
}
