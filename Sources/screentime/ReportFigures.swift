import Foundation
import ScreenTimeModel
import UsageStore

/// Everything `screentime report` shows for a range of local days, as JSON writes it (seconds as whole numbers,
/// times in ISO 8601 with the local offset); the table, CSV and HTML are made from the same value.
struct ReportFigures: Encodable {
    /// The range before, as long: what the daily average is compared with.
    struct Period: Encodable {
        var from: String
        var to: String
        var days: Int
        var totalSeconds: Int
        var dailyAverageSeconds: Int
    }

    /// An app, a category or something shielded, with its time.
    struct Named: Encodable {
        var id: String
        var name: String
        var category: String?
        var seconds: Int
    }

    struct LongestSession: Encodable {
        var id: String
        var name: String
        var start: String
        var end: String
        var seconds: Int
    }

    struct Notifications: Encodable {
        /// All of them: the apps' and the daemon's.
        var total: Int
        /// Those apps sent (seen on the session bus by the user daemon).
        var apps: Int
        /// The daemon's limit warnings.
        var warnings: Int
        /// The daemon's shields.
        var shields: Int
    }

    /// A limit's allowance on one local day, as the daemon recorded it that day.
    struct DayLimit: Encodable {
        var day: String
        var limit: String
        var seconds: Int
    }

    /// One row of `--by`: an app or a category (`id`, `name`), or an hour or a day (`start`, `end`).
    struct Row: Encodable {
        var id: String?
        var name: String?
        var category: String?
        var start: String?
        var end: String?
        var seconds: Int
        var pickups: Int?
        /// Hours and days: each category's seconds, by category id.
        var categories: [String: Int]?
        var notifications: Int?
        var shieldedSeconds: Int?
        var extraTimeSeconds: Int?
    }

    var user: UInt32
    var from: String
    var to: String
    /// Local days in the range (today counts as one while it runs).
    var days: Int
    var totalSeconds: Int
    var dailyAverageSeconds: Int
    var previous: Period
    /// The daily average's change against `previous`, in percent; nil when the previous period had no use.
    var dailyAverageChangePercent: Int?
    var pickups: Int
    var firstPickup: String?
    var longestSessionSeconds: Int?
    var longestSession: LongestSession?
    var mostUsedApp: String?
    var topApps: [Named]
    var topCategories: [Named]
    var notifications: Notifications
    var shieldedSeconds: Int
    var shielded: [Named]
    var extraTimeSeconds: Int
    var extraTimeGrants: Int
    var limits: [DayLimit]
    var by: String
    var rows: [Row]
}

/// Computes `ReportFigures` from the store: closed days from their rollups, today and hours from the intervals.
struct ReportBuilder {
    var database: UsageDatabase
    var user: UserID
    var names: ReportNames
    var calendar: Calendar
    var now: Date
    /// Where day rows end when later than the range: this week's report has a row for each of its seven days, those
    /// still to come empty (as an hour row of today still to come).
    var dayRowsThrough: Date?

    /// The figures of `range` (from a local midnight), with rows `by`.
    func figures(for range: DateInterval, by grouping: ReportCommand.Grouping) throws -> ReportFigures {
        let days = localDays(of: range)
        let dayReports = try database.report(for: user, days: days, now: now)
        let report = UsageReport(merging: dayReports)!
        let previousStart = calendar.startOfDay(-days.count, after: range.start)
        let previousDays = localDays(of: DateInterval(start: previousStart, end: range.start))
        let previousTotal = try database.report(for: user, days: previousDays, now: now)
            .reduce(Duration.zero) { $0 + $1.totalDuration }
        let total = seconds(report.totalDuration)
        let average = total / days.count
        let previousAverage = seconds(previousTotal) / max(1, previousDays.count)
        let notifications = try database.notifications(for: user, from: range.start, to: range.end)
        let appNotifications = try database.appNotifications(for: user, from: range.start, to: range.end).count
        let grants = try database.grants(for: user, from: range.start, to: range.end)
        let shielded = try database.shieldedTime(for: user, from: range.start, to: range.end)
        let apps = rankedApps(report.durationByApplication)
        let limits = try database.dailyLimits(
            for: user, from: dayName(days.first!.start), through: dayName(days.last!.start))
        return ReportFigures(
            user: user.rawValue, from: Self.iso(range.start), to: Self.iso(range.end), days: days.count,
            totalSeconds: total, dailyAverageSeconds: average,
            previous: ReportFigures.Period(
                from: Self.iso(previousStart), to: Self.iso(range.start), days: previousDays.count,
                totalSeconds: seconds(previousTotal), dailyAverageSeconds: previousAverage),
            dailyAverageChangePercent: previousAverage > 0
                ? Int((Double(average - previousAverage) / Double(previousAverage) * 100).rounded()) : nil,
            pickups: report.pickups, firstPickup: report.firstPickup.map(Self.iso),
            longestSessionSeconds: report.longestSession.map { seconds($0.duration) },
            longestSession: report.longestSession.map { longest in
                let app = names.app(longest.use.application)
                return ReportFigures.LongestSession(
                    id: app.id, name: app.name, start: Self.iso(longest.start), end: Self.iso(longest.end),
                    seconds: seconds(longest.duration))
            },
            mostUsedApp: apps.first?.name, topApps: Array(apps.prefix(5)),
            topCategories: Array(rankedCategories(report.durationByCategory).prefix(5)),
            notifications: ReportFigures.Notifications(
                total: notifications.count + appNotifications, apps: appNotifications,
                warnings: notifications.count { $0.kind == .warning },
                shields: notifications.count { $0.kind == .shield }),
            shieldedSeconds: seconds(shielded.total), shielded: shieldedTargets(shielded),
            extraTimeSeconds: Int(grants.map(\.seconds).reduce(0, +)), extraTimeGrants: grants.count,
            limits: limits.map { ReportFigures.DayLimit(day: $0.day, limit: $0.limit, seconds: Int($0.seconds)) },
            by: grouping.rawValue,
            rows: try rows(grouping, range: range, report: report, dayReports: dayReports, days: days))
    }

    /// One row per hour (a range of one day) or per day of `range`, for the chart of the HTML page.
    func chartRows(for range: DateInterval) throws -> [ReportFigures.Row] {
        let days = localDays(of: range)
        if days.count == 1, dayRowsThrough == nil { return try segmentRows(hours(of: range), reports: nil) }
        return try segmentRows(days, reports: try database.report(for: user, days: days, now: now))
            + daysToCome(after: days)
    }

    /// Empty rows for the days after `days` up to `dayRowsThrough`.
    private func daysToCome(after days: [DateInterval]) -> [ReportFigures.Row] {
        guard let through = dayRowsThrough, let last = days.last, last.end < through else { return [] }
        return localDays(of: DateInterval(start: last.end, end: through)).map { day in
            ReportFigures.Row(
                start: Self.iso(day.start), end: Self.iso(day.end), seconds: 0, pickups: 0, categories: [:],
                notifications: 0, shieldedSeconds: 0, extraTimeSeconds: 0)
        }
    }

    private func rows(
        _ grouping: ReportCommand.Grouping, range: DateInterval, report: UsageReport, dayReports: [UsageReport],
        days: [DateInterval]
    ) throws -> [ReportFigures.Row] {
        switch grouping {
        case .app:
            return rankedApps(report.durationByApplication).map {
                ReportFigures.Row(id: $0.id, name: $0.name, category: $0.category, seconds: $0.seconds)
            }
        case .category:
            return rankedCategories(report.durationByCategory).map {
                ReportFigures.Row(id: $0.id, name: $0.name, seconds: $0.seconds)
            }
        case .hour:
            return try segmentRows(hours(of: range), reports: nil)
        case .summary:
            return []
        case .day:
            return try segmentRows(days, reports: dayReports) + daysToCome(after: days)
        }
    }

    /// Rows for consecutive segments (clipped to now), with each one's use per category, pickups, notifications,
    /// time shielded and extra time.
    private func segmentRows(_ segments: [DateInterval], reports given: [UsageReport]?) throws -> [ReportFigures.Row] {
        let clipped = segments.map { DateInterval(start: $0.start, end: max($0.start, min($0.end, now))) }
        let reports = try given ?? database.reports(for: user, segments: clipped)
        let shielded = try database.shieldedTime(for: user, segments: clipped)
        let range = (clipped.first!.start, clipped.last!.end)
        let notifications =
            try database.notifications(for: user, from: range.0, to: range.1).map(\.time)
            + database.appNotifications(for: user, from: range.0, to: range.1).map(\.time)
        let grants = try database.grants(for: user, from: range.0, to: range.1)
        return clipped.indices.map { index in
            let segment = clipped[index]
            let inside = { (time: Date) in segment.start <= time && time < segment.end }
            // An hour or a day still to come keeps its end; the one running ends now.
            let end = segment.start >= now ? segments[index].end : segment.end
            return ReportFigures.Row(
                start: Self.iso(segment.start), end: Self.iso(end),
                seconds: seconds(reports[index].totalDuration),
                pickups: reports[index].pickups,
                categories: Dictionary(
                    reports[index].durationByCategory.map { (categoryID($0.key), seconds($0.value)) },
                    uniquingKeysWith: +),
                notifications: notifications.count(where: inside), shieldedSeconds: seconds(shielded[index].total),
                extraTimeSeconds: Int(grants.filter { inside($0.grantedAt) }.map(\.seconds).reduce(0, +)))
        }
    }

    private func rankedApps(_ durations: [ApplicationToken: Duration]) -> [ReportFigures.Named] {
        durations.map { token, duration in
            let app = names.app(token)
            return ReportFigures.Named(
                id: app.id, name: app.name, category: app.category?.rawValue, seconds: seconds(duration))
        }
        .sorted { ($1.seconds, $0.name, $0.id) < ($0.seconds, $1.name, $1.id) }
    }

    private func rankedCategories(_ durations: [ActivityCategoryToken: Duration]) -> [ReportFigures.Named] {
        durations.map { token, duration in
            let category = names.category(token)
            return ReportFigures.Named(
                id: category?.rawValue ?? token.rawValue, name: category?.displayName ?? "unknown",
                seconds: seconds(duration))
        }
        .sorted { ($1.seconds, $0.id) < ($0.seconds, $1.id) }
    }

    private func shieldedTargets(_ shielded: ShieldedTime) -> [ReportFigures.Named] {
        shielded.byTarget.map { target, duration in
            switch target.kind {
            case .application:
                let app = names.app(ApplicationToken(rawValue: target.token))
                return ReportFigures.Named(
                    id: app.id, name: app.name, category: app.category?.rawValue, seconds: seconds(duration))
            case .category:
                let category = names.category(ActivityCategoryToken(rawValue: target.token))
                return ReportFigures.Named(
                    id: category?.rawValue ?? target.token, name: category?.displayName ?? "unknown category",
                    seconds: seconds(duration))
            case .all:
                return ReportFigures.Named(id: "all", name: "every app", seconds: seconds(duration))
            }
        }
        .sorted { ($1.seconds, $0.id) < ($0.seconds, $1.id) }
    }

    /// A category token's id (`games`), or the token when unknown.
    func categoryID(_ token: ActivityCategoryToken) -> String { names.category(token)?.rawValue ?? token.rawValue }

    /// The local days that `range` touches, each whole (midnight to midnight; 23 or 25 hours on a clock change).
    func localDays(of range: DateInterval) -> [DateInterval] {
        var days: [DateInterval] = []
        var start = calendar.startOfDay(for: range.start)
        repeat {
            let end = calendar.startOfDay(1, after: start)
            days.append(DateInterval(start: start, end: end))
            start = end
        } while start < range.end
        return days
    }

    /// The local hours of `range`: a day of a clock change has 23 or 25.
    func hours(of range: DateInterval) -> [DateInterval] {
        var hours: [DateInterval] = []
        var start = range.start
        let end = localDays(of: range).last!.end
        while start < end {
            let next = calendar.date(byAdding: .hour, value: 1, to: start)!
            hours.append(DateInterval(start: start, end: next))
            start = next
        }
        return hours
    }

    /// A local day as `YYYY-MM-DD`.
    func dayName(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    private func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    /// ISO 8601 with the local offset.
    static func iso(_ date: Date) -> String { isoFormat.format(date) }

    private static let isoFormat = Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: .current)
}
