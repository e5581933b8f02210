import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// Per app, what `report(for:from:to:)` doesn't break down: the category each app was counted in and how many
    /// pickups began with it, for one user over `start..<end` (the same overlap rule as the report).
    public func applicationDetails(for user: UserID, from start: Date, to end: Date) throws
        -> (categories: [ApplicationToken: ActivityCategoryToken], pickups: [ApplicationToken: Int])
    {
        let arguments: StatementArguments = [
            "uid": Int64(user.rawValue), "from": start.millisecondsSince1970, "to": end.millisecondsSince1970,
        ]
        return try writer.read { db in
            var categories: [ApplicationToken: ActivityCategoryToken] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT i.appToken, i.categoryToken, MAX(i.startMilliseconds) AS latest
                    FROM usageInterval i JOIN loginSession s ON s.id = i.sessionRowID
                    WHERE s.uid = :uid AND i.startMilliseconds < :to
                      AND (i.endMilliseconds > :from
                           OR (i.endMilliseconds = i.startMilliseconds AND i.startMilliseconds >= :from))
                    GROUP BY i.appToken
                    """,
                arguments: arguments)
            {
                categories[ApplicationToken(rawValue: row["appToken"])] = ActivityCategoryToken(
                    rawValue: row["categoryToken"])
            }
            var pickups: [ApplicationToken: Int] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT p.appToken, COUNT(*) AS count
                    FROM pickup p JOIN loginSession s ON s.id = p.sessionRowID
                    WHERE s.uid = :uid AND p.wallMilliseconds >= :from AND p.wallMilliseconds < :to
                    GROUP BY p.appToken
                    """,
                arguments: arguments)
            {
                pickups[ApplicationToken(rawValue: row["appToken"])] = row["count"]
            }
            return (categories, pickups)
        }
    }
}
