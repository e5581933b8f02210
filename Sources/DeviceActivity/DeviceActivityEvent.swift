import Foundation
import ScreenTimeEngine
import ScreenTimeModel

/// A usage threshold to watch during an activity's intervals: Apple's `DeviceActivityEvent`.
///
/// Use of the listed apps, categories and web domains adds up within each interval; with none listed, all use
/// counts. `threshold` is a span (`DateComponents(hour: 1, minute: 30)`).
public struct DeviceActivityEvent: Hashable, Sendable, Codable {
    /// The name of an event within its activity.
    public typealias Name = ActivityEventName

    public let applications: Set<ApplicationToken>
    public let categories: Set<ActivityCategoryToken>
    public let webDomains: Set<WebDomainToken>
    public let threshold: DateComponents
    /// Whether use already made in the current interval counts when monitoring starts.
    public let includesPastActivity: Bool

    public init(
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [],
        webDomains: Set<WebDomainToken> = [], threshold: DateComponents, includesPastActivity: Bool = false
    ) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.threshold = threshold
        self.includesPastActivity = includesPastActivity
    }

    /// The event in the engine's terms, or why it cannot be.
    public func activityEvent() throws(MonitoringError) -> ActivityEvent {
        ActivityEvent(
            applications: applications, categories: categories, webDomains: webDomains,
            threshold: try threshold.duration(named: "threshold"), includesPastActivity: includesPastActivity)
    }
}
