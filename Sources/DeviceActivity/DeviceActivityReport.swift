import Foundation
import Glibc
import ScreenTimeBus
import Synchronization

/// A report an app shows: Apple's `DeviceActivityReport`, without SwiftUI. The app's report extension (declared
/// in its desktop entry as `X-ScreenTime-Report=/path/to/program`, a `DeviceActivityReportExtension`) renders the
/// scene of `context` in its own process, over the use `filter` selects, as text.
///
/// ```swift
/// let report = DeviceActivityReport(.totalActivity, filter: DeviceActivityFilter(segment: .daily(during: today)))
/// print(try await report.render())
/// ```
public struct DeviceActivityReport: Sendable {
    /// The name of a report scene: Apple's `DeviceActivityReport.Context`.
    public struct Context: RawRepresentable, Hashable, Sendable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }

    public var context: Context
    public var filter: DeviceActivityFilter

    /// The report of `context` over `filter`.
    public init(_ context: Context, filter: DeviceActivityFilter) {
        self.context = context
        self.filter = filter
    }

    /// Runs the calling app's report extension for this report and returns what it rendered.
    ///
    /// - Throws: `ScreenTimeBusError` `.unavailable` when the daemon can't be asked, `.failed` when the app declares
    ///   no report extension or the extension fails (with what it wrote to standard error).
    public func render(connection: DaemonConnection = .shared) async throws(ScreenTimeBusError) -> String {
        let declared = try BusJSON.decode(
            DeclaredExtensions.self, from: try connection.callForString(.catalog, "Extensions"))
        guard let executable = declared.extensions["report"] else {
            throw ScreenTimeBusError(
                .failed,
                "\(declared.application) declares no report extension: add X-ScreenTime-Report=/path/to/program to "
                    + "its desktop entry")
        }
        let arguments = try DeviceActivityReportInvocation(context: context, filter: filter).arguments()
        let (status, output, errors) = ReportProcess.run(executable, arguments)
        guard status == 0 else {
            throw ScreenTimeBusError(
                .failed, "the report extension \(executable) failed (status \(status)): \(errors.prefix(500))")
        }
        return output
    }
}

/// What a report extension is asked to render: its arguments `--context NAME --filter JSON`.
public struct DeviceActivityReportInvocation: Hashable, Sendable {
    public var context: DeviceActivityReport.Context
    public var filter: DeviceActivityFilter

    public init(context: DeviceActivityReport.Context, filter: DeviceActivityFilter) {
        self.context = context
        self.filter = filter
    }

    /// The command-line arguments that carry it.
    public func arguments() throws(ScreenTimeBusError) -> [String] {
        ["--context", context.rawValue, "--filter", try BusJSON.encode(filter)]
    }

    /// Reads it back from the arguments (without the program's name).
    ///
    /// - Throws: a message that names what is missing or wrong and the usage.
    public init(arguments: [String]) throws(ScreenTimeBusError) {
        var values: [String: String] = [:]
        var remaining = arguments[...]
        while let name = remaining.popFirst() {
            guard name == "--context" || name == "--filter", let value = remaining.popFirst() else {
                throw ScreenTimeBusError(
                    .invalidArgument, "unexpected argument \(name)\nusage: EXE --context NAME --filter FILTER_JSON")
            }
            values[String(name.dropFirst(2))] = value
        }
        guard let context = values["context"], let filter = values["filter"] else {
            throw ScreenTimeBusError(.invalidArgument, "usage: EXE --context NAME --filter FILTER_JSON")
        }
        self.init(context: .init(context), filter: try BusJSON.decode(DeviceActivityFilter.self, from: filter))
    }
}

/// Runs a report extension and collects its output.
enum ReportProcess {
    /// Runs `executable` with `arguments` and this process's environment; returns its exit status (127 when it could
    /// not start), standard output and standard error.
    static func run(_ executable: String, _ arguments: [String]) -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return (127, "", "\(error)") }
        // Read both to their end before waiting, so a long report can't fill a pipe and stall.
        let errorData = Mutex(Data())
        let reader = Thread { errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return (
            process.terminationStatus, String(decoding: outputData, as: UTF8.self),
            String(decoding: errorData.withLock { $0 }, as: UTF8.self)
        )
    }
}
