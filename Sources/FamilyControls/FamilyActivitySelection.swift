/// The apps, categories and web domains a person picked: Apple's `FamilyActivitySelection`, as opaque tokens.
///
/// It is `Codable`, so an app can store a selection and hand it later to an event or a shield. On Linux there is
/// no system picker; `screentime apps` lists the tokens of installed apps to build one from.
public struct FamilyActivitySelection: Hashable, Sendable, Codable {
    public var applicationTokens: Set<ApplicationToken>
    public var categoryTokens: Set<ActivityCategoryToken>
    public var webDomainTokens: Set<WebDomainToken>
    /// Whether picking a category picks all its apps and domains, present and future (Apple's flag, kept for
    /// source compatibility: tokens of categories always cover their future members here).
    public var includeEntireCategory: Bool

    public init(
        applicationTokens: Set<ApplicationToken> = [], categoryTokens: Set<ActivityCategoryToken> = [],
        webDomainTokens: Set<WebDomainToken> = [], includeEntireCategory: Bool = false
    ) {
        self.applicationTokens = applicationTokens
        self.categoryTokens = categoryTokens
        self.webDomainTokens = webDomainTokens
        self.includeEntireCategory = includeEntireCategory
    }

    /// Whether nothing is selected.
    public var isEmpty: Bool { applicationTokens.isEmpty && categoryTokens.isEmpty && webDomainTokens.isEmpty }
}
