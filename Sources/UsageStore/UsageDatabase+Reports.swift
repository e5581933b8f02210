import Foundation
import GRDB
import ScreenTimeModel

extension UsageDatabase {
    /// `user`'s usage from `start` (inclusive) to `end` (exclusive), in wall time, from the raw intervals.
    ///
    /// Intervals that cross an edge of the range are counted in proportion to the part of their wall-time span
    /// inside it; their monotonic duration is what is divided, so suspend never counts.
    public func report(for user: UserID, from start: Date, to end: Date) throws -> UsageReport {
        try reports(for: user, segments: [DateInterval(start: start, end: max(start, end))])[0]
    }

    /// One report per segment (contiguous, in order: hours or days of a range), from the raw intervals, read once for
    /// the whole range.
    public func reports(for user: UserID, segments: [DateInterval]) throws -> [UsageReport] {
        try writer.read { db in try Self.reports(db, for: user, segments: segments) }
    }

    /// `reports(for:segments:)` in the caller's transaction.
    static func reports(_ db: Database, for user: UserID, segments: [DateInterval]) throws -> [UsageReport] {
        guard let first = segments.first, let last = segments.last else { return [] }
        let bounds = segments.map { ($0.start.millisecondsSince1970, $0.end.millisecondsSince1970) }
        let from = first.start.millisecondsSince1970
        let to = last.end.millisecondsSince1970
        let arguments: StatementArguments = ["uid": Int64(user.rawValue), "from": from, "to": to]
        var intervals = Array(repeating: [IntervalRow](), count: segments.count)
        // An interval overlaps a range if it starts before its end and ends after its start; an instant interval
        // (start = end) if it lies in the range (`Span.overlaps`, checked below). The query reads the intervals
        // ending from the range's start on, by the index on their end (CROSS JOIN keeps SQLite from starting with
        // the sessions, which would read every interval of each): reports are mostly of recent days.
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT i.appToken, i.categoryToken, i.startMilliseconds, i.endMilliseconds, i.durationMilliseconds
                FROM usageInterval i INDEXED BY usageInterval_on_end CROSS JOIN loginSession s ON s.id = i.sessionRowID
                WHERE i.endMilliseconds >= :from AND i.startMilliseconds < :to AND s.uid = :uid
                """,
            arguments: arguments)
        while let row = try rows.next() {
            let interval = IntervalRow(
                application: row[0], category: row[1], span: Span(start: row[2], end: row[3], duration: row[4]))
            var index = Self.firstSegment(endingAfter: interval.span.start, in: bounds)
            while index < bounds.count, interval.span.overlaps(from: bounds[index].0, to: bounds[index].1) {
                intervals[index].append(interval)
                index += 1
            }
        }
        var pickups = Array(repeating: [Int64](), count: segments.count)
        let times = try Int64.fetchCursor(
            db,
            sql: """
                SELECT p.wallMilliseconds FROM pickup p JOIN loginSession s ON s.id = p.sessionRowID
                WHERE s.uid = :uid AND p.wallMilliseconds >= :from AND p.wallMilliseconds < :to
                """,
            arguments: arguments)
        while let time = try times.next() {
            let index = Self.firstSegment(endingAfter: time, in: bounds)
            if index < bounds.count, bounds[index].0 <= time { pickups[index].append(time) }
        }
        return segments.indices.map { index in
            UsageReport(user: user, segment: segments[index], intervals: intervals[index], pickups: pickups[index])
        }
    }

    /// The index of the first segment whose end is after `time` (`bounds.count` when none is).
    private static func firstSegment(endingAfter time: Int64, in bounds: [(Int64, Int64)]) -> Int {
        var low = 0
        var high = bounds.count
        while low < high {
            let middle = (low + high) / 2
            if bounds[middle].1 > time { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// One usage interval as reports read it.
struct IntervalRow {
    var application: String
    var category: String
    var span: Span
}

extension UsageReport {
    /// The report of one range from its overlapping intervals and its pickups' times. Each app's and each category's
    /// time is the union of its intervals (one app in front of two sessions at once is used once), and the total the
    /// union of all.
    init(user: UserID, segment: DateInterval, intervals: [IntervalRow], pickups: [Int64]) {
        let from = segment.start.millisecondsSince1970
        let to = segment.end.millisecondsSince1970
        var byApplication: [String: [Span]] = [:]
        var byCategory: [String: [Span]] = [:]
        var longest: IntervalRow?
        for interval in intervals {
            byApplication[interval.application, default: []].append(interval.span)
            byCategory[interval.category, default: []].append(interval.span)
            if let current = longest,
                (current.span.duration, -current.span.start) >= (interval.span.duration, -interval.span.start)
            {
                continue
            }
            longest = interval
        }
        self.init(
            user: user, start: segment.start, end: segment.end,
            durationByApplication: Dictionary(
                uniqueKeysWithValues: byApplication.map {
                    (ApplicationToken(rawValue: $0.key), Span.union($0.value, from: from, to: to))
                }),
            durationByCategory: Dictionary(
                uniqueKeysWithValues: byCategory.map {
                    (ActivityCategoryToken(rawValue: $0.key), Span.union($0.value, from: from, to: to))
                }),
            pickups: pickups.count, firstPickup: pickups.min().map(Date.init(millisecondsSince1970:)),
            longestSession: longest.map { row in
                LongestSession(
                    use: AppUse(
                        application: ApplicationToken(rawValue: row.application),
                        category: ActivityCategoryToken(rawValue: row.category)),
                    start: Date(millisecondsSince1970: row.span.start), end: Date(millisecondsSince1970: row.span.end),
                    duration: .milliseconds(row.span.duration))
            },
            totalDuration: Span.union(intervals.map(\.span), from: from, to: to))
    }
}

/// A usage interval's wall-time span and the monotonic time it counted (less than its span when the machine slept).
struct Span {
    var start: Int64
    var end: Int64
    var duration: Int64

    /// Whether the span counts in `from..<to`: it overlaps it, or it is an instant inside it.
    func overlaps(from: Int64, to: Int64) -> Bool {
        start < to && (end > from || (end == start && start >= from))
    }

    /// The time `spans` cover between `from` and `to`, each instant counted once: the wall time covered by any span,
    /// at the rate (use per wall millisecond, below 1 when the machine slept) of the spans covering it, the highest
    /// where several overlap. An instant span counts its duration when it lies in the range. One sweep over the
    /// spans' edges after sorting them.
    static func union(_ spans: [Span], from: Int64, to: Int64) -> Duration {
        var edges: [(at: Int64, rate: Double, opens: Bool)] = []
        var instants: Int64 = 0
        for span in spans {
            if span.end == span.start {
                if span.start >= from && span.start < to { instants += span.duration }
                continue
            }
            let start = max(span.start, from)
            let end = min(span.end, to)
            guard end > start else { continue }
            let rate = Double(span.duration) / Double(span.end - span.start)
            edges.append((start, rate, true))
            edges.append((end, rate, false))
        }
        edges.sort { $0.at < $1.at }
        var total = 0.0
        // The rates of the spans covering the sweep's position, each with how many spans have it.
        var covering: [Double: Int] = [:]
        var position = edges.first?.at ?? 0
        for edge in edges {
            if edge.at > position, let rate = covering.keys.max() { total += Double(edge.at - position) * rate }
            position = edge.at
            let count = (covering[edge.rate] ?? 0) + (edge.opens ? 1 : -1)
            covering[edge.rate] = count > 0 ? count : nil
        }
        return .milliseconds(Int64(total.rounded()) + instants)
    }
}
