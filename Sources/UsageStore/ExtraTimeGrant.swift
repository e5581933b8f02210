import Foundation
import GRDB
import ScreenTimeModel

/// A row of `extraTimeGrant`: more time given to a user for an app or a limit ("15 more minutes").
public struct ExtraTimeGrant: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "extraTimeGrant"
    /// The row id; nil before insertion.
    public var id: Int64?
    /// The user given the time.
    public var uid: Int64
    /// What the time is for: an app's token or a limit's name.
    public var target: String
    /// How much time, in seconds; more than 0.
    public var seconds: Int64
    /// Wall time of the grant, milliseconds since 1970.
    public var grantedAtMilliseconds: Int64
    /// Why: `asked`, `guardian`, … (free text, may be empty).
    public var reason: String

    /// Creates a grant.
    public init(id: Int64? = nil, user: UserID, target: String, seconds: Int64, grantedAt: Date, reason: String) {
        self.id = id
        self.uid = Int64(user.rawValue)
        self.target = target
        self.seconds = seconds
        self.grantedAtMilliseconds = grantedAt.millisecondsSince1970
        self.reason = reason
    }

    /// When it was granted.
    public var grantedAt: Date { Date(millisecondsSince1970: grantedAtMilliseconds) }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
