/// What one settings store shields: Apple's `ShieldSettings`, which the `ManagedSettings` module re-exports.
///
/// A `nil` field leaves that kind of shield to the other stores; the effective shield of a user is the union of
/// all their stores, so the most restrictive store wins.
public struct ShieldSettings: Hashable, Sendable, Codable {
    /// Apple's spelling, `ShieldSettings.ActivityCategoryPolicy<Application>`, with our token as the member.
    public typealias ActivityCategoryPolicy<Member: Hashable & Sendable & Codable> =
        ScreenTimeModel.ActivityCategoryPolicy<Member>

    public var applications: Set<ApplicationToken>?
    public var applicationCategories: ActivityCategoryPolicy<ApplicationToken>?
    public var webDomains: Set<WebDomainToken>?
    public var webDomainCategories: ActivityCategoryPolicy<WebDomainToken>?
    /// Apps that may not run at all: Apple's `ApplicationSettings.blockedApplications`. They are held like shielded
    /// apps (caught at exec where the platform allows it, otherwise at the next tick), with no shield to answer.
    public var blockedApplications: Set<ApplicationToken>?

    public init(
        applications: Set<ApplicationToken>? = nil,
        applicationCategories: ActivityCategoryPolicy<ApplicationToken>? = nil,
        webDomains: Set<WebDomainToken>? = nil,
        webDomainCategories: ActivityCategoryPolicy<WebDomainToken>? = nil,
        blockedApplications: Set<ApplicationToken>? = nil
    ) {
        self.blockedApplications = blockedApplications
        self.applications = applications
        self.applicationCategories = applicationCategories
        self.webDomains = webDomains
        self.webDomainCategories = webDomainCategories
    }

    /// Whether the policy shields nothing at all.
    public var isEmpty: Bool {
        (applications?.isEmpty ?? true) && (applicationCategories?.isNone ?? true)
            && (webDomains?.isEmpty ?? true) && (webDomainCategories?.isNone ?? true)
            && (blockedApplications?.isEmpty ?? true)
    }
}
