import Foundation
import GRDB
import ScreenTimeModel

/// A row of `clientValue`: one thing a client of the D-Bus API keeps in the daemon (an activity it monitors, a
/// settings store, its authorization), keyed by the client: the user and the app identity the daemon resolved for
/// the calling process.
public struct ClientValueRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "clientValue"

    /// What kind of value a row holds.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// A monitored activity; `name` is the activity's, `json` what the client started it with.
        case activity
        /// A settings store; `name` is the store's, `json` its shield settings.
        case settingsStore
        /// The client's authorization; `name` is empty, `json` the status (`approved`, `denied`).
        case authorization
    }

    /// The client's user (uid).
    public var uid: Int64
    /// The client's app identity (`AppID`).
    public var client: String
    public var kind: Kind
    /// The activity's or the store's name, as the client named it.
    public var name: String
    /// The value, encoded by the daemon.
    public var json: String
    /// Wall time of the last change, milliseconds since 1970.
    public var updatedAtMilliseconds: Int64

    /// Creates a row.
    public init(user: UserID, client: AppID, kind: Kind, name: String, json: String, updatedAt: Date) {
        uid = Int64(user.rawValue)
        self.client = client.rawValue
        self.kind = kind
        self.name = name
        self.json = json
        updatedAtMilliseconds = updatedAt.millisecondsSince1970
    }

    /// The client's user.
    public var user: UserID { UserID(UInt32(clamping: uid)) }
    /// The client's app identity.
    public var clientID: AppID { AppID(client) }
}

extension UsageDatabase {
    /// The migration that adds the clients' table; registered after every earlier one, so today's data is kept.
    static func registerClientMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-client-values") { db in
            try db.create(table: ClientValueRecord.databaseTableName) { table in
                table.column("uid", .integer).notNull().check { $0 >= 0 }
                table.column("client", .text).notNull().check { length($0) > 0 }
                table.column("kind", .text).notNull()
                    .check { ClientValueRecord.Kind.allCases.map(\.rawValue).contains($0) }
                table.column("name", .text).notNull()
                table.column("json", .text).notNull()
                table.column("updatedAtMilliseconds", .integer).notNull()
                table.primaryKey(["uid", "client", "kind", "name"])
            }
        }
    }

    /// Creates or replaces a client's value.
    public func saveClientValue(_ record: ClientValueRecord) throws {
        try writer.write { db in try record.save(db) }
    }

    /// Removes a client's values of `kind` named in `names` (every one of that kind when `names` is nil).
    public func deleteClientValues(
        user: UserID, client: AppID, kind: ClientValueRecord.Kind, names: [String]? = nil
    ) throws {
        try writer.write { db in
            var request = ClientValueRecord
                .filter(Column("uid") == Int64(user.rawValue))
                .filter(Column("client") == client.rawValue)
                .filter(Column("kind") == kind.rawValue)
            if let names { request = request.filter(names.contains(Column("name"))) }
            _ = try request.deleteAll(db)
        }
    }

    /// Every client's values, ordered by client, kind and name.
    public func clientValues() throws -> [ClientValueRecord] {
        try writer.read { db in
            try ClientValueRecord.order(Column("uid"), Column("client"), Column("kind"), Column("name")).fetchAll(db)
        }
    }
}
