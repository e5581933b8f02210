/// Which categories a shield covers: Apple's `ShieldSettings.ActivityCategoryPolicy`.
///
/// `Member` is the token type the exceptions name: `ApplicationToken` for app categories, `WebDomainToken` for
/// web-domain categories.
public enum ActivityCategoryPolicy<Member: Hashable & Sendable & Codable>: Hashable, Sendable, Codable {
    /// No category is shielded.
    case none
    /// Every category is shielded, except the listed members.
    case all(except: Set<Member> = [])
    /// The listed categories are shielded, except the listed members.
    case specific(Set<ActivityCategoryToken>, except: Set<Member> = [])

    /// Whether the policy is `.none`. (Comparing an optional policy with `.none` would mean `Optional.none`.)
    public var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// Whether a member of `category` is shielded under this policy.
    public func shields(_ member: Member, in category: ActivityCategoryToken) -> Bool {
        switch self {
        case .none: false
        case .all(let exceptions): !exceptions.contains(member)
        case .specific(let categories, let exceptions): categories.contains(category) && !exceptions.contains(member)
        }
    }
}
