import Foundation
import GRDB

/// A row of `dailyLimit`: the time a limit of the policy allowed on one local day, written as the day happens (at
/// the daemon's start, at each policy change and when the day changes), so a report shows the limit of each day
/// even after the policy changed. The policy's limits hold for every user the daemon counts.
public struct DailyLimitRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "dailyLimit"
    /// The local day, `YYYY-MM-DD`.
    public var day: String
    /// The limit's name in the policy.
    public var limit: String
    /// Use allowed that day, in seconds.
    public var seconds: Int64
    /// Wall time the row was written, milliseconds since 1970.
    public var recordedAtMilliseconds: Int64

    /// Creates a row.
    public init(day: String, limit: String, seconds: Int64, recordedAt: Date) {
        self.day = day
        self.limit = limit
        self.seconds = seconds
        recordedAtMilliseconds = recordedAt.millisecondsSince1970
    }
}
