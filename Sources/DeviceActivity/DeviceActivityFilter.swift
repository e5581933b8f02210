import Foundation

/// Which use a report shows: Apple's `DeviceActivityFilter`. The daemon counts this machine's use of the calling
/// user, so `users` and `devices` keep Apple's spelling and select that one user and device.
public struct DeviceActivityFilter: Hashable, Sendable, Codable {
    /// How the reported stretch of time is cut into segments.
    public enum SegmentInterval: Hashable, Sendable, Codable {
        /// One segment per local hour of `during`.
        case hourly(during: DateInterval)
        /// One segment per local day of `during`.
        case daily(during: DateInterval)
        /// One segment per local week of `during`.
        case weekly(during: DateInterval)

        /// The daemon's name of the cut (`Usage1.Segments`) and the stretch of time.
        var segmentAndInterval: (String, DateInterval) {
            switch self {
            case .hourly(let interval): ("hourly", interval)
            case .daily(let interval): ("daily", interval)
            case .weekly(let interval): ("weekly", interval)
            }
        }
    }

    /// Whose use: on Linux in individual mode, both are the calling user's.
    public enum Users: String, Hashable, Sendable, Codable {
        case all
        case children
    }

    /// Which devices: this machine.
    public struct Devices: Hashable, Sendable, Codable {
        /// Every device, which here is this one.
        public static let all = Devices()
    }

    public var segmentInterval: SegmentInterval
    public var users: Users
    public var devices: Devices
    /// Only these apps (empty: every app).
    public var applications: Set<ApplicationToken>
    /// Only these categories (empty: every category).
    public var categories: Set<ActivityCategoryToken>

    /// A filter of `segment`, for `users` on `devices`, optionally only some apps and categories.
    public init(
        segment: SegmentInterval, users: Users = .all, devices: Devices = .all,
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = []
    ) {
        segmentInterval = segment
        self.users = users
        self.devices = devices
        self.applications = applications
        self.categories = categories
    }
}
