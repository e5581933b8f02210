/// A usage threshold inside an activity: Apple's `DeviceActivityEvent` in the engine's own terms.
///
/// Use counts while an app that matches is in use in an active session during the activity's interval. An app
/// matches when its token is in `applications`, its category in `categories`, or its web domain in `webDomains`;
/// when all three sets are empty, all activity counts, with or without an app in front.
public struct ActivityEvent: Hashable, Sendable, Codable {
    public var applications: Set<ApplicationToken>
    public var categories: Set<ActivityCategoryToken>
    public var webDomains: Set<WebDomainToken>
    /// The cumulative use within one interval at which `eventDidReachThreshold` fires. Must be positive.
    public var threshold: Duration
    /// Whether use made in the current interval before monitoring started counts.
    public var includesPastActivity: Bool

    public init(
        applications: Set<ApplicationToken> = [], categories: Set<ActivityCategoryToken> = [],
        webDomains: Set<WebDomainToken> = [], threshold: Duration, includesPastActivity: Bool = false
    ) {
        self.applications = applications
        self.categories = categories
        self.webDomains = webDomains
        self.threshold = threshold
        self.includesPastActivity = includesPastActivity
    }

    /// Whether the event counts all activity rather than chosen apps, categories or domains.
    public var countsAllActivity: Bool { applications.isEmpty && categories.isEmpty && webDomains.isEmpty }

    /// Whether time during which `uses` are in front counts toward this event.
    public func counts(_ uses: [AppUse]) -> Bool {
        if countsAllActivity { return true }
        for use in uses where matches(use) { return true }
        return false
    }

    /// Whether one app in use matches the event's tokens.
    public func matches(_ use: AppUse) -> Bool {
        if applications.contains(use.application) || categories.contains(use.category) { return true }
        if let domain = use.webDomain, webDomains.contains(domain) { return true }
        return false
    }
}
