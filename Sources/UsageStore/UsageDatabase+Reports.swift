import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// `user`'s usage from `start` (inclusive) to `end` (exclusive), in wall time.
    ///
    /// Intervals that cross an edge of the range are counted in proportion to the part of their wall-time span
    /// inside it; their monotonic duration is what is divided, so suspend never counts.
    public func report(for user: UserID, from start: Date, to end: Date) throws -> UsageReport {
        let from = start.millisecondsSince1970
        let to = end.millisecondsSince1970
        let uid = Int64(user.rawValue)
        return try writer.read { db in
            // An interval overlaps the range if it starts before its end and ends after its start; an instant
            // interval (start = end) if it lies in the range.
            let overlap = """
                FROM usageInterval i JOIN loginSession s ON s.id = i.sessionRowID
                WHERE s.uid = :uid AND i.startMilliseconds < :to
                  AND (i.endMilliseconds > :from
                       OR (i.endMilliseconds = i.startMilliseconds AND i.startMilliseconds >= :from))
                """
            let arguments: StatementArguments = ["uid": uid, "from": from, "to": to]
            var byApplication: [ApplicationToken: Duration] = [:]
            var byCategory: [ActivityCategoryToken: Duration] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.appToken, i.categoryToken, SUM(
                      CASE WHEN i.endMilliseconds > i.startMilliseconds
                      THEN i.durationMilliseconds * (MIN(i.endMilliseconds, :to) - MAX(i.startMilliseconds, :from))
                           * 1.0 / (i.endMilliseconds - i.startMilliseconds)
                      ELSE i.durationMilliseconds END) AS milliseconds
                    \(overlap)
                    GROUP BY i.appToken, i.categoryToken
                    """,
                arguments: arguments)
            for row in rows {
                let duration = Duration.milliseconds(Int64((row["milliseconds"] as Double).rounded()))
                byApplication[ApplicationToken(rawValue: row["appToken"]), default: .zero] += duration
                byCategory[ActivityCategoryToken(rawValue: row["categoryToken"]), default: .zero] += duration
            }
            let longest = try Row.fetchOne(
                db,
                sql: """
                    SELECT i.appToken, i.categoryToken, i.startMilliseconds, i.endMilliseconds, i.durationMilliseconds
                    \(overlap)
                    ORDER BY i.durationMilliseconds DESC, i.startMilliseconds LIMIT 1
                    """,
                arguments: arguments
            ).map { row in
                UsageReport.LongestSession(
                    use: AppUse(
                        application: ApplicationToken(rawValue: row["appToken"]),
                        category: ActivityCategoryToken(rawValue: row["categoryToken"])),
                    start: Date(millisecondsSince1970: row["startMilliseconds"]),
                    end: Date(millisecondsSince1970: row["endMilliseconds"]),
                    duration: .milliseconds(row["durationMilliseconds"] as Int64))
            }
            let pickups = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS count, MIN(p.wallMilliseconds) AS first
                    FROM pickup p JOIN loginSession s ON s.id = p.sessionRowID
                    WHERE s.uid = :uid AND p.wallMilliseconds >= :from AND p.wallMilliseconds < :to
                    """,
                arguments: arguments)!
            let first: Int64? = pickups["first"]
            return UsageReport(
                user: user, start: start, end: end, durationByApplication: byApplication,
                durationByCategory: byCategory, pickups: pickups["count"],
                firstPickup: first.map(Date.init(millisecondsSince1970:)), longestSession: longest)
        }
    }
}
