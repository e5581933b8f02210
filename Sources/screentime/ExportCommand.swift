import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeModel
import UsageStore

/// `screentime export`: the raw usage intervals, for a spreadsheet or another tool.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the raw usage intervals as CSV or JSON.",
        discussion: """
            One record per interval of an app in front of a session: start and end (ISO 8601 with offset), seconds \
            of use (suspend excluded, so at most end − start), app id, app name, category, session and user. \
            Columns of the CSV: start,end,seconds,app_id,app_name,category,session,user. Only the calling user's \
            own data; root may export another user's from the guardian daemon's store with --user NAME. An app \
            keeps the name the daemon recorded for it, also once it is uninstalled. With --output the file is \
            created with mode 0600.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, json }

    @OptionGroup var daemon: DaemonOptions
    @OptionGroup var person: UserOption

    @Option(help: "csv or json.")
    var format: Format = .csv

    @Option(help: ArgumentHelp("First local day, YYYY-MM-DD (default: everything).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last local day (inclusive), YYYY-MM-DD; default: today.", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Write to this file (mode 0600) instead of standard output.", valueName: "path"))
    var output: String?

    struct Record: Encodable {
        var start: String
        var end: String
        var seconds: Double
        var appID: String
        var appName: String
        var category: String
        var session: String
        var user: UInt32
    }

    func run() async throws {
        let (user, settings) = try person.resolve(daemon)
        let database = try daemon.openDatabase(settings)
        let start = try from.map { try ReportCommand.day($0, option: "--from") } ?? Date(timeIntervalSince1970: 0)
        let last = try to.map { try ReportCommand.day($0, option: "--to") } ?? Calendar.current.startOfDay(for: Date())
        guard start <= last else {
            throw ValidationError("--from \(from ?? "") is after --to \(to ?? "today"): give the earlier day to --from")
        }
        let end = Calendar.current.startOfDay(1, after: last)
        let names = try ReportNames(database: database) { try? ReportCommand.catalog(settings) }
        let records = try database.intervals(for: user, from: start, to: end).map { interval in
            let app = names.app(interval.application)
            let components = interval.duration.components
            return Record(
                start: ReportCommand.iso(interval.start), end: ReportCommand.iso(interval.end),
                seconds: Double(components.seconds) + Double(components.attoseconds) / 1e18,
                appID: app.id, appName: app.name, category: names.category(interval.category)?.rawValue ?? "unknown",
                session: interval.session, user: interval.user.rawValue)
        }
        let text: String
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            text = jsonText(try encoder.encode(records)) + "\n"
        case .csv:
            text =
                (["start,end,seconds,app_id,app_name,category,session,user"] + records.map(Self.csvLine)).joined(
                    separator: "\n") + "\n"
        }
        guard let output else {
            printData(text)
            return
        }
        let descriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            printError("screentime: cannot write \(output): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            printError("screentime: cannot write \(output): \(String(cString: strerror(errno)))")
            throw ExitCode(1)
        }
    }

    static func csvLine(_ record: Record) -> String {
        let field = csvField
        return [
            record.start, record.end, String(format: "%.3f", record.seconds), field(record.appID),
            field(record.appName),
            record.category, field(record.session), String(record.user),
        ].joined(separator: ",")
    }
}

/// A CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a comma, a quote or a line break (`\r\n`
/// is one `Character`: `isNewline` finds it).
func csvField(_ text: String) -> String {
    text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
        ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
}
