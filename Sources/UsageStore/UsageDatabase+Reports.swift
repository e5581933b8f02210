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
            // One app in front of two sessions at once (two seats, a desktop and an ssh login) is used once: each
            // app's and each category's time is the union of its intervals, not their sum.
            var byApplication: [ApplicationToken: [Span]] = [:]
            var byCategory: [ActivityCategoryToken: [Span]] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.appToken, i.categoryToken, i.startMilliseconds, i.endMilliseconds, i.durationMilliseconds
                    \(overlap)
                    """,
                arguments: arguments)
            for row in rows {
                let span = Span(
                    start: row["startMilliseconds"], end: row["endMilliseconds"], duration: row["durationMilliseconds"])
                byApplication[ApplicationToken(rawValue: row["appToken"]), default: []].append(span)
                byCategory[ActivityCategoryToken(rawValue: row["categoryToken"]), default: []].append(span)
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
                user: user, start: start, end: end,
                durationByApplication: byApplication.mapValues { Span.union($0, from: from, to: to) },
                durationByCategory: byCategory.mapValues { Span.union($0, from: from, to: to) }, pickups: pickups["count"],
                firstPickup: first.map(Date.init(millisecondsSince1970:)), longestSession: longest)
        }
    }
}

/// A usage interval's wall-time span and the monotonic time it counted (less than its span when the machine slept).
struct Span {
    var start: Int64
    var end: Int64
    var duration: Int64

    /// The time `spans` cover between `from` and `to`, each instant counted once: the wall time covered by any span,
    /// at the rate (use per wall millisecond, below 1 when the machine slept) of the spans covering it, the higher
    /// where two overlap. An instant span counts its duration when it lies in the range. One pass after sorting.
    static func union(_ spans: [Span], from: Int64, to: Int64) -> Duration {
        var pieces: [(start: Int64, end: Int64, rate: Double)] = []
        var instants: Int64 = 0
        for span in spans {
            if span.end == span.start {
                if span.start >= from && span.start < to { instants += span.duration }
                continue
            }
            let start = max(span.start, from)
            let end = min(span.end, to)
            if end > start { pieces.append((start, end, Double(span.duration) / Double(span.end - span.start))) }
        }
        pieces.sort { $0.start < $1.start }
        var total = 0.0
        var current: (start: Int64, end: Int64, rate: Double)?
        for piece in pieces {
            guard var open = current, piece.start < open.end else {
                if let open = current { total += Double(open.end - open.start) * open.rate }
                current = piece
                continue
            }
            // Up to where the next piece starts at the open rate; the overlap once, at the higher rate; what is
            // left of either stays open.
            total += Double(piece.start - open.start) * open.rate
            let overlapEnd = min(open.end, piece.end)
            total += Double(overlapEnd - piece.start) * max(open.rate, piece.rate)
            open = piece.end > open.end ? (open.end, piece.end, piece.rate) : (piece.end, open.end, open.rate)
            current = open.end > open.start ? open : nil
        }
        if let open = current { total += Double(open.end - open.start) * open.rate }
        return .milliseconds(Int64(total.rounded()) + instants)
    }
}
