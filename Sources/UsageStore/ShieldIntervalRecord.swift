import Foundation
import GRDB
import ScreenTimeModel

/// A row of `shieldInterval`: a stretch of time something was shielded for a user: one app (by token), one
/// category, or every app (a downtime, a limit on all use). While the shield holds, the same row is extended at each
/// flush (like a usage interval), so a crash loses at most one flush of it.
public struct ShieldIntervalRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "shieldInterval"

    /// What was shielded.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// One app; `token` is its token.
        case application
        /// A category; `token` is the category's token.
        case category
        /// Every app but the allowed ones; `token` is empty.
        case all
    }

    /// The row id; nil before insertion.
    public var id: Int64?
    /// The user the shield held for.
    public var uid: Int64
    public var kind: Kind
    /// The app's or the category's token; empty for `all`.
    public var token: String
    /// Wall time the shield began, milliseconds since 1970.
    public var startMilliseconds: Int64
    /// Wall time it ended (or was last seen holding), milliseconds since 1970.
    public var endMilliseconds: Int64
    /// Time it held on the monotonic clock, milliseconds (a suspended machine shields nothing).
    public var durationMilliseconds: Int64

    /// Creates a row.
    public init(
        id: Int64? = nil, user: UserID, kind: Kind, token: String, start: Date, end: Date, duration: Duration
    ) {
        self.id = id
        uid = Int64(user.rawValue)
        self.kind = kind
        self.token = token
        startMilliseconds = start.millisecondsSince1970
        endMilliseconds = max(end.millisecondsSince1970, startMilliseconds)
        durationMilliseconds = max(0, duration.wholeMilliseconds)
    }

    /// The user.
    public var user: UserID { UserID(UInt32(clamping: uid)) }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
