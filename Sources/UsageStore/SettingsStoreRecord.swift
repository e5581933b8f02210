import Foundation
import GRDB

/// A row of `settingsStore`: one named settings store (`ManagedSettingsStore(named:)`) as JSON.
public struct SettingsStoreRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "settingsStore"
    /// The store's name; unique.
    public var name: String
    /// The store's shield settings, encoded as JSON by their owner.
    public var json: String
    /// Wall time of the last change, milliseconds since 1970.
    public var updatedAtMilliseconds: Int64

    /// Creates a row.
    public init(name: String, json: String, updatedAt: Date) {
        self.name = name
        self.json = json
        self.updatedAtMilliseconds = updatedAt.millisecondsSince1970
    }
}
