import GRDB

/// A row of `usageInterval`: one stretch of one app in front in one session. While the app stays in front the
/// same row is updated (its end and duration grow); a new row starts when the app comes back after a gap.
public struct UsageIntervalRecord: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    /// The table's name.
    public static let databaseTableName = "usageInterval"
    /// The row id; nil before insertion.
    public var id: Int64?
    /// The `loginSession` row.
    public var sessionRowID: Int64
    /// The app's token.
    public var appToken: String
    /// The token of the app's category when it was used.
    public var categoryToken: String
    /// Wall time of the start, milliseconds since 1970.
    public var startMilliseconds: Int64
    /// Wall time of the end so far, milliseconds since 1970.
    public var endMilliseconds: Int64
    /// Use counted on the monotonic clock, in milliseconds (suspend and wall-clock changes excluded).
    public var durationMilliseconds: Int64

    /// Creates a row.
    public init(
        id: Int64? = nil, sessionRowID: Int64, appToken: String, categoryToken: String, startMilliseconds: Int64,
        endMilliseconds: Int64, durationMilliseconds: Int64
    ) {
        self.id = id
        self.sessionRowID = sessionRowID
        self.appToken = appToken
        self.categoryToken = categoryToken
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.durationMilliseconds = durationMilliseconds
    }

    /// Takes the row id assigned by SQLite.
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
