import ScreenTimeModel

/// What is shielded for one user: the union of all their settings stores, so the most restrictive store wins.
public struct EffectiveShield: Hashable, Sendable, Codable, CustomStringConvertible {
    public var applications: Set<ApplicationToken> = []
    public var applicationCategories = CategoryShield<ApplicationToken>()
    public var webDomains: Set<WebDomainToken> = []
    public var webDomainCategories = CategoryShield<WebDomainToken>()

    public init() {}

    /// The union of several stores' policies.
    public init<S: Sequence>(union policies: S) where S.Element == ShieldSettings {
        for policy in policies {
            applications.formUnion(policy.applications ?? [])
            // A blocked app is held as a shielded one is: it never runs while blocked.
            applications.formUnion(policy.blockedApplications ?? [])
            webDomains.formUnion(policy.webDomains ?? [])
            if let policy = policy.applicationCategories { applicationCategories.add(policy) }
            if let policy = policy.webDomainCategories { webDomainCategories.add(policy) }
        }
    }

    /// Whether nothing is shielded.
    public var isEmpty: Bool {
        applications.isEmpty && webDomains.isEmpty && applicationCategories.isEmpty && webDomainCategories.isEmpty
    }

    /// Whether an app in use is shielded: by its token, its category, or the web domain it shows.
    public func shields(_ use: AppUse) -> Bool {
        if shields(application: use.application, category: use.category) { return true }
        if let domain = use.webDomain, webDomains.contains(domain) { return true }
        return false
    }

    /// Whether an app of a category is shielded.
    public func shields(application: ApplicationToken, category: ActivityCategoryToken) -> Bool {
        applications.contains(application) || applicationCategories.shields(application, in: category)
    }

    public var description: String {
        "EffectiveShield(applications: \(applications.count), categories: \(applicationCategories), "
            + "webDomains: \(webDomains.count), webDomainCategories: \(webDomainCategories))"
    }
}

/// The union of several `ActivityCategoryPolicy` values: every category but some members, and/or chosen
/// categories each but some members. A member is shielded when any part covers it.
public struct CategoryShield<Member: Hashable & Sendable & Codable>: Hashable, Sendable, Codable,
    CustomStringConvertible
{
    /// When set, every category is shielded except these members (the intersection of the stores' exceptions).
    public var allExcept: Set<Member>?
    /// Categories shielded, each with the members excepted (the intersection of the stores' exceptions).
    public var specific: [ActivityCategoryToken: Set<Member>] = [:]

    public init() {}

    public var isEmpty: Bool { allExcept == nil && specific.isEmpty }

    /// Adds one store's policy to the union.
    public mutating func add(_ policy: ActivityCategoryPolicy<Member>) {
        switch policy {
        case .none:
            break
        case .all(let exceptions):
            allExcept = allExcept.map { $0.intersection(exceptions) } ?? exceptions
        case .specific(let categories, let exceptions):
            for category in categories {
                specific[category] = specific[category].map { $0.intersection(exceptions) } ?? exceptions
            }
        }
    }

    /// Whether a member of `category` is shielded.
    public func shields(_ member: Member, in category: ActivityCategoryToken) -> Bool {
        if let allExcept, !allExcept.contains(member) { return true }
        if let exceptions = specific[category], !exceptions.contains(member) { return true }
        return false
    }

    public var description: String {
        if let allExcept { return "all except \(allExcept.count) + \(specific.count) specific" }
        return "\(specific.count) specific"
    }
}
