import Foundation
import GRDB
import ScreenTimeModel

/// A row of `appNotification`: a notification an app sent its user through the desktop's notification server, seen
/// by the daemon on the user's session bus, with the app it came from (by token). Apple's `numberOfNotifications`.
public struct AppNotificationRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "appNotification"

    /// The row id; nil before insertion.
    public var id: Int64?
    /// The user it was sent to.
    public var uid: Int64
    /// Wall time it was sent, milliseconds since 1970.
    public var wallMilliseconds: Int64
    /// The sending app's token.
    public var token: String

    /// Creates a row.
    public init(id: Int64? = nil, user: UserID, time: Date, application: ApplicationToken) {
        self.id = id
        uid = Int64(user.rawValue)
        wallMilliseconds = time.millisecondsSince1970
        token = application.rawValue
    }

    /// When it was sent.
    public var time: Date { Date(millisecondsSince1970: wallMilliseconds) }

    /// The sending app.
    public var application: ApplicationToken { ApplicationToken(rawValue: token) }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
