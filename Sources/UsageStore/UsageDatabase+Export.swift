import Foundation
import GRDB
import ScreenTimeModel

/// One usage interval as `screentime export` writes it: the raw ledger, before any report merges it.
public struct ExportedInterval: Hashable, Sendable {
    public var start: Date
    public var end: Date
    /// Use counted (monotonic; suspend excluded), which may be less than `end - start`.
    public var duration: Duration
    public var application: ApplicationToken
    public var category: ActivityCategoryToken
    public var session: String
    public var user: UserID
}

extension UsageDatabase {
    /// `user`'s intervals that overlap `start..<end`, oldest first.
    public func intervals(for user: UserID, from start: Date, to end: Date) throws -> [ExportedInterval] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT i.appToken, i.categoryToken, i.startMilliseconds, i.endMilliseconds, i.durationMilliseconds,
                           s.sessionID
                    FROM usageInterval i JOIN loginSession s ON s.id = i.sessionRowID
                    WHERE s.uid = ? AND i.startMilliseconds < ? AND i.endMilliseconds >= ?
                    ORDER BY i.startMilliseconds, i.id
                    """,
                arguments: [Int64(user.rawValue), end.millisecondsSince1970, start.millisecondsSince1970]
            ).map { row in
                ExportedInterval(
                    start: Date(millisecondsSince1970: row["startMilliseconds"]),
                    end: Date(millisecondsSince1970: row["endMilliseconds"]),
                    duration: .milliseconds(row["durationMilliseconds"] as Int64),
                    application: ApplicationToken(rawValue: row["appToken"]),
                    category: ActivityCategoryToken(rawValue: row["categoryToken"]), session: row["sessionID"],
                    user: user)
            }
        }
    }
}
