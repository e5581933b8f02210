import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// Creates or replaces the settings store `name` with its JSON.
    public func saveSettingsStore(named name: String, json: String, at time: Date) throws {
        try writer.write { db in try SettingsStoreRecord(name: name, json: json, updatedAt: time).save(db) }
    }

    /// Every settings store, by name.
    public func settingsStores() throws -> [SettingsStoreRecord] {
        try writer.read { db in try SettingsStoreRecord.order(Column("name")).fetchAll(db) }
    }

    /// Removes the settings store `name` (`clearAllSettings()`); returns whether it existed.
    @discardableResult
    public func deleteSettingsStore(named name: String) throws -> Bool {
        try writer.write { db in try SettingsStoreRecord.deleteOne(db, key: name) }
    }

    /// Records a grant of extra time; returns it with its row id.
    @discardableResult
    public func recordGrant(_ grant: ExtraTimeGrant) throws -> ExtraTimeGrant {
        try writer.write { db in
            var grant = grant
            try grant.insert(db)
            return grant
        }
    }

    /// `user`'s grants from `start` (inclusive) to `end` (exclusive), oldest first.
    public func grants(for user: UserID, from start: Date, to end: Date) throws -> [ExtraTimeGrant] {
        try writer.read { db in
            try ExtraTimeGrant
                .filter(Column("uid") == Int64(user.rawValue))
                .filter(Column("grantedAtMilliseconds") >= start.millisecondsSince1970)
                .filter(Column("grantedAtMilliseconds") < end.millisecondsSince1970)
                .order(Column("grantedAtMilliseconds"))
                .fetchAll(db)
        }
    }
}
