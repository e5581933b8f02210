import Foundation
import GRDB
import ScreenTimeModel

/// A row of `notification`: a notification the daemon sent a user (a limit's warning, a shield), as the day
/// happens. Notifications other programs send are not seen by the daemon and are not counted.
public struct NotificationRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "notification"

    /// What the notification said.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// A limit is near (`warning` in the policy).
        case warning
        /// A limit was reached and its apps are shielded.
        case shield
    }

    /// The row id; nil before insertion.
    public var id: Int64?
    /// The user it was sent to.
    public var uid: Int64
    /// Wall time it was sent, milliseconds since 1970.
    public var wallMilliseconds: Int64
    public var kind: Kind
    /// The limit it is about, as the policy names it.
    public var limit: String
    /// Its title, as shown.
    public var title: String

    /// Creates a row.
    public init(id: Int64? = nil, user: UserID, time: Date, kind: Kind, limit: String, title: String) {
        self.id = id
        uid = Int64(user.rawValue)
        wallMilliseconds = time.millisecondsSince1970
        self.kind = kind
        self.limit = limit
        self.title = title
    }

    /// When it was sent.
    public var time: Date { Date(millisecondsSince1970: wallMilliseconds) }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
