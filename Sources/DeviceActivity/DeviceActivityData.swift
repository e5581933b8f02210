import Foundation
import ManagedSettings

/// One user's use on one device: Apple's `DeviceActivityData`.
public struct DeviceActivityData: Hashable, Sendable {
    /// The person the use is of.
    public struct User: Hashable, Sendable {
        /// The account's login name.
        public var nameComponents: PersonNameComponents?
        /// The account's uid.
        public var userID: UInt32
    }

    /// The device: this machine.
    public struct Device: Hashable, Sendable {
        /// The host name.
        public var name: String?
    }

    public var user: User
    public var device: Device
    /// When the daemon last counted use (the time of the query).
    public var lastUpdatedDate: Date
    /// The use, segment by segment.
    public var activitySegments: DeviceActivityResults<ActivitySegment>
}

/// The use of one segment (an hour, a day or a week): Apple's `DeviceActivityData.ActivitySegment`.
public struct ActivitySegment: Hashable, Sendable {
    /// The segment's stretch of time.
    public var dateInterval: DateInterval
    /// Seconds of use (an app in front of two sessions at once counts once).
    public var totalActivityDuration: TimeInterval
    /// The longest stretch of one app in front, if any.
    public var longestActivity: DateInterval?
    /// The first pickup of the segment, if any.
    public var firstPickup: Date?
    /// Pickups in the segment.
    public var totalPickupsWithoutApplicationActivity: Int
    /// The use by category, most used first.
    public var categories: DeviceActivityResults<CategoryActivity>
}

/// A category's use in one segment: Apple's `DeviceActivityData.CategoryActivity`.
public struct CategoryActivity: Hashable, Sendable {
    /// A category as a report shows it: Apple's `ActivityCategory`.
    public struct Category: Hashable, Sendable {
        public var token: ActivityCategoryToken?
        public var localizedDisplayName: String?
    }

    public var category: Category
    /// Seconds of use.
    public var totalActivityDuration: TimeInterval
    /// The category's apps, most used first.
    public var applications: DeviceActivityResults<ApplicationActivity>
}

/// An app's use in one segment: Apple's `DeviceActivityData.ApplicationActivity`.
public struct ApplicationActivity: Hashable, Sendable {
    /// The app, with its id and name from the daemon's catalog.
    public var application: Application
    /// Seconds in front.
    public var totalActivityDuration: TimeInterval
    /// Pickups that began with the app.
    public var numberOfPickups: Int
    /// Notifications the app posted: not counted on Linux yet, always 0.
    public var numberOfNotifications: Int
    /// The category the app was counted in.
    public var category: CategoryActivity.Category?
}
