/// Screen Time's app categories, plus `webBrowsers` and `developerTools`. The raw value is the id used in
/// policy files and from which the category's token is derived.
public enum ActivityCategory: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    case games
    case social
    case entertainment
    case creativity
    case education
    case productivityFinance = "productivity-finance"
    case informationReading = "information-reading"
    case healthFitness = "health-fitness"
    case utilities
    case shoppingFood = "shopping-food"
    case travel
    case webBrowsers = "web-browsers"
    case developerTools = "developer-tools"
    case other

    public var description: String { rawValue }

    /// The name shown to people.
    public var displayName: String {
        switch self {
        case .games: "Games"
        case .social: "Social"
        case .entertainment: "Entertainment"
        case .creativity: "Creativity"
        case .education: "Education"
        case .productivityFinance: "Productivity & Finance"
        case .informationReading: "Information & Reading"
        case .healthFitness: "Health & Fitness"
        case .utilities: "Utilities"
        case .shoppingFood: "Shopping & Food"
        case .travel: "Travel"
        case .webBrowsers: "Web Browsers"
        case .developerTools: "Developer Tools"
        case .other: "Other"
        }
    }
}
