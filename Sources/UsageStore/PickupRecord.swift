import GRDB

/// A row of `pickup`: the first app a user turned to after coming back to a session.
public struct PickupRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "pickup"
    /// The row id; nil before insertion.
    public var id: Int64?
    /// The `loginSession` row.
    public var sessionRowID: Int64
    /// The token of the app picked up.
    public var appToken: String
    /// Wall time, milliseconds since 1970.
    public var wallMilliseconds: Int64

    /// Creates a row.
    public init(id: Int64? = nil, sessionRowID: Int64, appToken: String, wallMilliseconds: Int64) {
        self.id = id
        self.sessionRowID = sessionRowID
        self.appToken = appToken
        self.wallMilliseconds = wallMilliseconds
    }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
