import GRDB

/// A row of `loginSession`: one logind session of one boot. Session ids restart at every boot, so the boot id is
/// part of the key; intervals and pickups reference this row.
public struct LoginSessionRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "loginSession"
    /// The row id; nil before insertion.
    public var id: Int64?
    /// `/proc/sys/kernel/random/boot_id` of the boot the session belongs to.
    public var bootID: String
    /// logind's session id (`"3"`, `"c1"`).
    public var sessionID: String
    /// The session's user.
    public var uid: Int64

    /// Creates a row.
    public init(id: Int64? = nil, bootID: String, sessionID: String, uid: Int64) {
        self.id = id
        self.bootID = bootID
        self.sessionID = sessionID
        self.uid = uid
    }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
