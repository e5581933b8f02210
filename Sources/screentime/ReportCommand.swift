import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeDaemon
import ScreenTimeModel
import UsageStore

/// `screentime report`: use over a range of local days, by app, category, hour or day, as a table, JSON, CSV or a
/// self-contained HTML page.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Usage per app, category, hour or day over a range of days.",
        discussion: """
            The range is today (the default), --yesterday, --week (this week, from the locale's first weekday), \
            --last-week, or --from/--to (inclusive local days, YYYY-MM-DD). Time is foreground time, each app \
            counted once per user even when it runs in two sessions at once; suspended time never counts. Hours \
            are local: a day with a clock change has 23 or 25 hour rows. The daily average is compared with as many \
            days just before the range. JSON and CSV carry seconds as numbers and times in ISO 8601 with their \
            offset. CSV columns: --by app id, name, category, seconds; --by category id, name, seconds; --by hour or \
            day start, end, seconds, pickups, notifications, shielded_seconds, extra_time_seconds; --by summary \
            figure, value, detail (every figure of the table, one per line). --format html writes one page with \
            charts (no script, nothing fetched). --user NAME reads another user's data from the guardian daemon's \
            store, as root only.
            """)

    enum Grouping: String, ExpressibleByArgument, CaseIterable {
        case app, category, hour, day, summary
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv, html
    }

    @OptionGroup var daemon: DaemonOptions
    @OptionGroup var person: UserOption

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

    @Option(help: "Rows per app, category, hour or day; summary: the figures alone.")
    var by: Grouping = .app

    @Option(help: "table, json, csv or html.")
    var format: Format = .table

    @Flag(help: "The same as --format json.")
    var json = false

    func validate() throws {
        let ranges = [today, yesterday, week, lastWeek, from != nil || to != nil].filter { $0 }.count
        if ranges > 1 {
            throw ValidationError("choose one range: --today, --yesterday, --week, --last-week or --from/--to")
        }
        if json && format != .table && format != .json {
            throw ValidationError("--json is --format json: it can't be combined with --format \(format.rawValue)")
        }
    }

    func run() async throws {
        let now = Date()
        let range = try self.range(now: now)
        let (user, settings) = try person.resolve(daemon)
        let database = try daemon.openDatabase(settings)
        let names = try ReportNames(database: database) { try? Self.catalog(settings) }
        var builder = ReportBuilder(database: database, user: user, names: names, calendar: .current, now: now)
        if week { builder.dayRowsThrough = Calendar.current.dateInterval(of: .weekOfYear, for: now)?.end }
        let figures = try builder.figures(for: DateInterval(start: range.0, end: range.1), by: by)
        switch json ? .json : format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(jsonText(try encoder.encode(figures)))
        case .csv:
            printData(figures.csv())
        case .table:
            printText(figures.table(), terminator: "")
        case .html:
            let chart = try builder.chartRows(for: DateInterval(start: range.0, end: range.1))
            print(ReportPage(figures: figures, chart: chart, userName: person.user).html(), terminator: "")
        }
    }

    /// The range of local time the flags name.
    func range(now: Date) throws -> (Date, Date) {
        let calendar = Calendar.current
        let midnight = calendar.startOfDay(for: now)
        if from != nil || to != nil {
            let first = try from.map { try Self.day($0, option: "--from") } ?? midnight
            let last = try to.map { try Self.day($0, option: "--to") } ?? midnight
            guard first <= last else {
                throw ValidationError(
                    "--from \(from ?? "today") is after --to \(to ?? "today"): give the earlier day to --from")
            }
            guard first <= now else {
                throw ValidationError("--from \(from ?? "") is in the future: nothing is recorded yet")
            }
            return (first, min(calendar.startOfDay(1, after: last), now))
        }
        if yesterday { return (calendar.startOfDay(-1, after: midnight), midnight) }
        if week || lastWeek {
            let thisWeek = calendar.dateInterval(of: .weekOfYear, for: now)!.start
            return lastWeek
                ? (calendar.date(byAdding: .weekOfYear, value: -1, to: thisWeek)!, thisWeek) : (thisWeek, now)
        }
        return (midnight, now)
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

    /// A local day, `YYYY-MM-DD`, at its midnight; `option` names where it was given, for the error.
    static func day(_ text: String, option: String = "the date") throws -> Date {
        guard let day = Calendar.current.startOfDay(parsing: text) else {
            throw ValidationError("\(option) \"\(text)\" is not a day: write YYYY-MM-DD, e.g. 2026-11-25")
        }
        return day
    }

    /// ISO 8601 with the local offset.
    static func iso(_ date: Date) -> String { ReportBuilder.iso(date) }
}
