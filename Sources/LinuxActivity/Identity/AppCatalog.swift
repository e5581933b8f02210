import ScreenTimeModel

/// What people see of an app: its name, icon and category, and its tokens.
public struct AppLabel: Hashable, Sendable, Codable {
    public var id: AppID
    public var name: String
    public var icon: String?
    public var category: ActivityCategory
    public var token: ApplicationToken
    public var categoryToken: ActivityCategoryToken
    /// The desktop entry that describes the app, if any.
    public var desktopEntryID: String?
}

/// The apps one user can have: desktop entries, category overrides and the token key, with a cache of labels.
/// The key's owner can turn a token back into a label (`label(forToken:)`); nobody else can.
public final class AppCatalog: @unchecked Sendable {
    // @unchecked: the label cache is mutated only by the collector's task that owns the catalog.
    public let desktopEntries: DesktopEntryIndex
    public let overrides: CategoryOverrides
    public let tokenizer: Tokenizer
    public let locale: String?
    private var labels: [AppID: AppLabel] = [:]

    public init(desktopEntries: DesktopEntryIndex, overrides: CategoryOverrides, tokenizer: Tokenizer, locale: String?) {
        self.desktopEntries = desktopEntries
        self.overrides = overrides
        self.tokenizer = tokenizer
        self.locale = locale
    }

    /// The catalog of a user with this home and environment: the desktop entries of their data directories, and
    /// names in the locale of `LC_ALL`, `LC_MESSAGES` or `LANG`.
    public convenience init(
        home: String?, environment: [String: String], overrides: CategoryOverrides, tokenizer: Tokenizer
    ) {
        let locale = Self.locale(of: environment)
        self.init(
            desktopEntries: DesktopEntryIndex(
                dataDirectories: DesktopEntryIndex.dataDirectories(home: home, environment: environment),
                nameLocaleKeys: Set(DesktopEntry.localeKeys(locale))),
            overrides: overrides, tokenizer: tokenizer, locale: locale)
    }

    /// The variables that say which locale names apps, the first one set winning.
    public static let localeVariables = ["LC_ALL", "LC_MESSAGES", "LANG"]

    /// The locale whose names a catalog made from `environment` gives: `LC_ALL`'s, `LC_MESSAGES`' or `LANG`'s.
    public static func locale(of environment: [String: String]) -> String? {
        localeVariables.lazy.compactMap { environment[$0] }.first
    }

    /// The label of an app id (cached).
    public func label(for id: AppID) -> AppLabel {
        if let label = labels[id] { return label }
        let entry = desktopEntries.entries[id.rawValue]
        let category =
            overrides.categories[id] ?? entry.map { CategoryMapping.category(for: $0.categories) } ?? .other
        let label = AppLabel(
            id: id, name: entry?.name(locale: locale) ?? id.rawValue, icon: entry?.icon, category: category,
            token: tokenizer.token(for: id), categoryToken: tokenizer.token(for: category),
            desktopEntryID: entry?.id)
        labels[id] = label
        return label
    }

    /// Labels of every installed app (desktop entries that are shown in menus), sorted by name.
    public func installedApps() -> [AppLabel] {
        desktopEntries.entries.values.filter { !$0.noDisplay }.map { label(for: AppID($0.id)) }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
    }

    /// The label behind a token, among installed apps and apps seen so far. Nil when the token is not one of them
    /// (or was made with another key).
    public func label(forToken token: ApplicationToken) -> AppLabel? {
        if let label = labels.values.first(where: { $0.token == token }) { return label }
        return installedApps().first { $0.token == token }
    }

    /// The category behind a category token.
    public func category(forToken token: ActivityCategoryToken) -> ActivityCategory? {
        ActivityCategory.allCases.first { tokenizer.token(for: $0) == token }
    }
}
