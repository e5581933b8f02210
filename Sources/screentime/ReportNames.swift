import LinuxActivity
import ScreenTimeModel
import UsageStore

/// What reports and exports call an app or a category: the label the daemon kept in the store when it saw the app
/// (so an uninstalled app keeps its name), else the caller's catalog (desktop entries and the token key), read only
/// when some token is unknown to the store.
final class ReportNames {
    /// An app as reports name it.
    struct App {
        var id: String
        var name: String
        var category: ActivityCategory?
    }

    private let labels: [ApplicationToken: AppLabelRecord]
    private let categories: [ActivityCategoryToken: ActivityCategory]
    private let makeCatalog: () -> AppCatalog?
    private var catalog: AppCatalog??
    private var unknown: [ApplicationToken: App] = [:]

    init(database: UsageDatabase, catalog: @escaping () -> AppCatalog?) throws {
        labels = try database.appLabels()
        var categories: [ActivityCategoryToken: ActivityCategory] = [:]
        for label in labels.values {
            if let category = label.activityCategory {
                categories[ActivityCategoryToken(rawValue: label.categoryToken)] = category
            }
        }
        self.categories = categories
        makeCatalog = catalog
    }

    private var loadedCatalog: AppCatalog? {
        if let catalog { return catalog }
        let made = makeCatalog()
        catalog = .some(made)
        return made
    }

    /// The app behind `token`; its token as id and "unknown app" as name when nothing knows it.
    func app(_ token: ApplicationToken) -> App {
        if let label = labels[token] {
            return App(id: label.appID, name: label.name, category: label.activityCategory)
        }
        if let known = unknown[token] { return known }
        let app =
            loadedCatalog?.label(forToken: token).map { App(id: $0.id.rawValue, name: $0.name, category: $0.category) }
            ?? App(id: token.rawValue, name: "unknown app", category: nil)
        unknown[token] = app
        return app
    }

    /// The category behind `token`, nil when nothing knows it.
    func category(_ token: ActivityCategoryToken) -> ActivityCategory? {
        categories[token] ?? loadedCatalog?.category(forToken: token)
    }
}
