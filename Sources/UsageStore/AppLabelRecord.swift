import Foundation
import GRDB
import ScreenTimeModel

/// A row of `appLabel`: what a token stood for when the daemon last saw its app (id, name, category), so reports and
/// exports still name an app after it is uninstalled, and without the token key.
public struct AppLabelRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "appLabel"
    /// The app's token (the key).
    public var token: String
    /// The app's id (`org.example.Game`, an executable's name).
    public var appID: String
    /// The name people see, from the app's desktop entry (or its id).
    public var name: String
    /// The category's id (`games`, `web-browsers`, …; see `ActivityCategory`).
    public var category: String
    /// The category's token, as usage intervals carry it.
    public var categoryToken: String
    /// Wall time the daemon last wrote the row, milliseconds since 1970.
    public var updatedAtMilliseconds: Int64

    /// Creates a row.
    public init(
        token: ApplicationToken, appID: AppID, name: String, category: ActivityCategory,
        categoryToken: ActivityCategoryToken, updatedAt: Date
    ) {
        self.token = token.rawValue
        self.appID = appID.rawValue
        self.name = name
        self.category = category.rawValue
        self.categoryToken = categoryToken.rawValue
        updatedAtMilliseconds = updatedAt.millisecondsSince1970
    }

    /// The app's token.
    public var applicationToken: ApplicationToken { ApplicationToken(rawValue: token) }
    /// The category, nil when the id is not one this version knows.
    public var activityCategory: ActivityCategory? { ActivityCategory(rawValue: category) }
}
