import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeDaemon
import ScreenTimeModel
import UsageStore

/// `screentime report`: use over a range of local days, by app, category, hour or day, as a table, JSON or CSV.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Usage per app, category, hour or day over a range of days.",
        discussion: """
            The range is today (the default), --yesterday, --week (this week, from the locale's first weekday), \
            --last-week, or --from/--to (inclusive local days, YYYY-MM-DD). Time is foreground time, each app \
            counted once per user even when it runs in two sessions at once; suspended time never counts. Hours \
            are local: a day with a clock change has 23 or 25 hour rows. JSON and CSV carry seconds as numbers and \
            times in ISO 8601 with their offset. CSV columns: by app or category `id,name,seconds`; by hour or day \
            `start,end,seconds,pickups`.
            """)

    enum Grouping: String, ExpressibleByArgument, CaseIterable {
        case app, category, hour, day
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    @OptionGroup var daemon: DaemonOptions

    @Flag(help: "Today, from local midnight (the default).")
    var today = false

    @Flag(help: "Yesterday.")
    var yesterday = false

    @Flag(help: "This week, from its first day (the locale's) to now.")
    var week = false

    @Flag(help: "Last week.")
    var lastWeek = false

    @Option(help: ArgumentHelp("First local day, YYYY-MM-DD.", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last local day (inclusive), YYYY-MM-DD; default: today.", valueName: "date"))
    var to: String?

    @Option(help: "Rows per app, category, hour or day.")
    var by: Grouping = .app

    @Option(help: "table, json or csv.")
    var format: Format = .table

    @Flag(help: "The same as --format json.")
    var json = false

    /// One row of the report.
    struct Row: Encodable {
        var id: String?
        var name: String?
        var start: String?
        var end: String?
        var seconds: Int
        var pickups: Int?
    }

    /// The whole report, as JSON shows it.
    struct Output: Encodable {
        var user: UInt32
        var from: String
        var to: String
        var totalSeconds: Int
        var dailyAverageSeconds: Int
        var pickups: Int
        var firstPickup: String?
        var longestSessionSeconds: Int?
        var mostUsedApp: String?
        var extraTimeSeconds: Int
        var by: String
        var rows: [Row]
    }

    func run() async throws {
        let settings = daemon.settings
        let database = try daemon.openDatabase()
        let (start, end) = try range(now: Date())
        let user = UserID(getuid())
        let report = try database.report(for: user, from: start, to: end)
        let catalog = try Self.catalog(settings)
        let rows = try rows(report: report, database: database, user: user, from: start, to: end, catalog: catalog)
        let days = max(1, Int((end.timeIntervalSince(start) / 86_400).rounded(.up)))
        let total = Int(report.totalDuration.components.seconds)
        let top = report.durationByApplication.max { $0.value < $1.value }.map { catalog.label(forToken: $0.key) }
        let output = Output(
            user: user.rawValue, from: Self.iso(start), to: Self.iso(end), totalSeconds: total,
            dailyAverageSeconds: total / days, pickups: report.pickups, firstPickup: report.firstPickup.map(Self.iso),
            longestSessionSeconds: report.longestSession.map { Int($0.duration.components.seconds) },
            mostUsedApp: top.flatMap { $0?.name },
            extraTimeSeconds: Int(try database.grants(for: user, from: start, to: end).map(\.seconds).reduce(0, +)),
            by: by.rawValue, rows: rows)
        switch json ? .json : format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
        case .csv:
            print(csv(rows))
        case .table:
            printTable(output)
        }
    }

    /// The range of local time the flags name.
    func range(now: Date) throws -> (Date, Date) {
        let calendar = Calendar.current
        let midnight = calendar.startOfDay(for: now)
        if from != nil || to != nil {
            let first = try from.map(Self.day) ?? midnight
            let last = try to.map(Self.day) ?? midnight
            guard first <= last, let end = calendar.date(byAdding: .day, value: 1, to: last) else {
                throw ValidationError("--from must be a day no later than --to")
            }
            return (first, min(end, now))
        }
        if yesterday { return (calendar.date(byAdding: .day, value: -1, to: midnight)!, midnight) }
        if week || lastWeek {
            let thisWeek = calendar.dateInterval(of: .weekOfYear, for: now)!.start
            return lastWeek ? (calendar.date(byAdding: .weekOfYear, value: -1, to: thisWeek)!, thisWeek) : (thisWeek, now)
        }
        return (midnight, now)
    }

    private func rows(
        report: UsageReport, database: UsageDatabase, user: UserID, from start: Date, to end: Date, catalog: AppCatalog
    ) throws -> [Row] {
        switch by {
        case .app:
            return report.durationByApplication.sorted { $0.value > $1.value }.map { token, duration in
                let label = catalog.label(forToken: token)
                return Row(id: label?.id.rawValue ?? token.rawValue, name: label?.name ?? "unknown app", seconds: Int(duration.components.seconds))
            }
        case .category:
            return report.durationByCategory.sorted { $0.value > $1.value }.map { token, duration in
                let category = catalog.category(forToken: token)
                return Row(
                    id: category?.rawValue ?? token.rawValue, name: category?.displayName ?? "unknown",
                    seconds: Int(duration.components.seconds))
            }
        case .hour, .day:
            var rows: [Row] = []
            var segment = start
            while segment < end {
                let next = min(Calendar.current.date(byAdding: by == .hour ? .hour : .day, value: 1, to: segment)!, end)
                let part = try database.report(for: user, from: segment, to: next)
                rows.append(
                    Row(
                        start: Self.iso(segment), end: Self.iso(next), seconds: Int(part.totalDuration.components.seconds),
                        pickups: part.pickups))
                segment = next
            }
            return rows
        }
    }

    private func csv(_ rows: [Row]) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        switch by {
        case .app, .category:
            return (["id,name,seconds"] + rows.map { [field($0.id ?? ""), field($0.name ?? ""), String($0.seconds)].joined(separator: ",") })
                .joined(separator: "\n")
        case .hour, .day:
            return (["start,end,seconds,pickups"] + rows.map { "\($0.start ?? ""),\($0.end ?? ""),\($0.seconds),\($0.pickups ?? 0)" })
                .joined(separator: "\n")
        }
    }

    private func printTable(_ output: Output) {
        printText(
            "\(output.from) – \(output.to): \(NowTable.format(.seconds(output.totalSeconds))) in total, "
                + "\(NowTable.format(.seconds(output.dailyAverageSeconds))) a day on average, \(output.pickups) pickups")
        if let first = output.firstPickup { printText("First pickup: \(first)") }
        if let longest = output.longestSessionSeconds { printText("Longest session: \(NowTable.format(.seconds(longest)))") }
        if let top = output.mostUsedApp { printText("Most used: \(top)") }
        if output.extraTimeSeconds > 0 { printText("Extra time granted: \(NowTable.format(.seconds(output.extraTimeSeconds)))") }
        printText("By \(output.by):")
        for row in output.rows {
            let label = row.start.map { "\($0) – \(row.end ?? "")" } ?? "\(row.name ?? "?") [\(row.id ?? "?")]"
            printText("  \(NowTable.format(.seconds(row.seconds)))  \(label)")
        }
    }

    /// The calling user's catalog, with the apps the policy names labelled too.
    static func catalog(_ settings: DaemonSettings) throws -> AppCatalog {
        let tokenizer = try loadTokenizer(KeyOptions(system: settings.system, tokenKey: settings.tokenKeyPath))
        let environment = ProcessInfo.processInfo.environment
        let overrides =
            (try? CategoryOverrides.load(home: environment["HOME"], environment: environment)) ?? CategoryOverrides()
        let catalog = AppCatalog(
            home: environment["HOME"], environment: environment, overrides: overrides, tokenizer: tokenizer)
        // Apps named by the policy are labelled even when no desktop entry knows them.
        for id in (try? Policy.load(from: settings.policyPath))?.limits.flatMap(\.applications) ?? [] {
            _ = catalog.label(for: id)
        }
        return catalog
    }

    /// A local day, `YYYY-MM-DD`, at its midnight.
    static func day(_ text: String) throws -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let date = formatter.date(from: text) else {
            throw ValidationError("\"\(text)\" is not a day; write YYYY-MM-DD, e.g. 2026-11-25")
        }
        return Calendar.current.startOfDay(for: date)
    }

    /// ISO 8601 with the local offset.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = .current
        return formatter.string(from: date)
    }
}
