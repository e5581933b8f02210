import Foundation
import ScreenTimeModel

/// What `org.screentime.Usage1.Report` answers (and each element of `Segments`), as JSON: one user's use of a
/// stretch of time, by app and category, from the daemon's usage store.
public struct UsageSummary: Codable, Hashable, Sendable {
    /// The most segments one `Usage1.Segments` call reports on: each is a report of its own, read while the daemon's
    /// loop waits (six weeks by the hour, nearly three years by the day). Longer ranges are asked for in parts.
    public static let maximumSegments = 1_000

    /// The longest stretch of one app in front.
    public struct LongestActivity: Codable, Hashable, Sendable {
        public var application: ApplicationToken
        public var category: ActivityCategoryToken
        public var start: Date
        public var end: Date

        /// A stretch of `application` from `start` to `end`.
        public init(application: ApplicationToken, category: ActivityCategoryToken, start: Date, end: Date) {
            self.application = application
            self.category = category
            self.start = start
            self.end = end
        }
    }

    /// Where the stretch starts (inclusive).
    public var start: Date
    /// Where it ends (exclusive).
    public var end: Date
    /// Seconds of use in total: the time any app counted, each instant once (less than the sum of the apps' where
    /// several counted at once).
    public var totalSeconds: Double
    /// Seconds of use by application token.
    public var applicationSeconds: [String: Double]
    /// Seconds of use by category token.
    public var categorySeconds: [String: Double]
    /// How many times a session was picked up.
    public var pickups: Int
    /// The first pickup, if any.
    public var firstPickup: Date?
    /// The longest stretch of one app, if any.
    public var longestActivity: LongestActivity?
    /// The category token each used app was counted in, by application token (absent from older daemons).
    public var applicationCategories: [String: String]?
    /// Pickups that began with each app, by application token (absent from older daemons).
    public var applicationPickups: [String: Int]?
    /// Notifications each app sent, by application token (absent from older daemons).
    public var applicationNotifications: [String: Int]?
    /// Each used app's id, name and category as the daemon recorded them when it saw the app, by application token:
    /// also an app no desktop entry describes (a terminal program) or one since uninstalled (absent from older
    /// daemons).
    public var applicationLabels: [String: ApplicationLabel]?

    /// An app as the daemon recorded it.
    public struct ApplicationLabel: Codable, Hashable, Sendable {
        public var id: String
        public var name: String
        /// The category's id (`games`, `web-browsers`).
        public var category: String

        public init(id: String, name: String, category: String) {
            self.id = id
            self.name = name
            self.category = category
        }
    }

    /// A summary with every field given.
    public init(
        start: Date, end: Date, totalSeconds: Double, applicationSeconds: [String: Double],
        categorySeconds: [String: Double], pickups: Int, firstPickup: Date?, longestActivity: LongestActivity?,
        applicationCategories: [String: String]? = nil, applicationPickups: [String: Int]? = nil,
        applicationNotifications: [String: Int]? = nil, applicationLabels: [String: ApplicationLabel]? = nil
    ) {
        self.applicationNotifications = applicationNotifications
        self.applicationLabels = applicationLabels
        self.applicationCategories = applicationCategories
        self.applicationPickups = applicationPickups
        self.start = start
        self.end = end
        self.totalSeconds = totalSeconds
        self.applicationSeconds = applicationSeconds
        self.categorySeconds = categorySeconds
        self.pickups = pickups
        self.firstPickup = firstPickup
        self.longestActivity = longestActivity
    }
}
