import Foundation
import GRDB
import ScreenTimeModel

/// A row of `dailyLimit`: the time a limit of the policy allowed one user on one local day, written as the day
/// happens (at the daemon's start, at each policy change, when the day changes and when a user is first seen), so a
/// report shows the limit of each day even after the policy changed; in guardian mode each user's own (their
/// policy's, none for an exempt user).
public struct DailyLimitRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "dailyLimit"
    /// The user the limit held for; `anyUser` for a row written before limits were recorded by user.
    public var uid: Int64
    /// The `uid` of rows that hold for every user.
    public static let anyUser: Int64 = -1
    /// The local day, `YYYY-MM-DD`.
    public var day: String
    /// The limit's name in the policy.
    public var limit: String
    /// Use allowed that day, in seconds.
    public var seconds: Int64
    /// Wall time the row was written, milliseconds since 1970.
    public var recordedAtMilliseconds: Int64

    /// Creates a row.
    public init(user: UserID, day: String, limit: String, seconds: Int64, recordedAt: Date) {
        uid = Int64(user.rawValue)
        self.day = day
        self.limit = limit
        self.seconds = seconds
        recordedAtMilliseconds = recordedAt.millisecondsSince1970
    }
}
