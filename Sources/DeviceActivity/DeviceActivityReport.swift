import CLinux
import Foundation
import Glibc
import ScreenTimeBus

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
    /// not start, 128 + N when signal N ended it), standard output and standard error.
    ///
    /// Through `posix_spawn(3)` and close-on-exec pipes rather than Foundation's `Process`: the extension gets
    /// standard input, output and error alone, and a child the app starts on another thread meanwhile can't hold a
    /// pipe open (the report would wait for that child's end).
    static func run(_ executable: String, _ arguments: [String]) -> (Int32, String, String) {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&output) == 0 else { return (127, "", "cannot create a pipe (errno \(errno))") }
        guard clinux_pipe_cloexec(&errors) == 0 else {
            output.forEach { close($0) }
            return (127, "", "cannot create a pipe (errno \(errno))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        clinux_spawn_actions_close_from(&actions, 3)
        // Default dispositions and an empty mask, whatever the app ignores or blocks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        clinux_spawnattr_reset_signals(&attributes)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard started == 0 else { return (127, "", "cannot run \(executable): \(String(cString: strerror(started)))") }
        // Both read to their end together, so a long report can't fill a pipe and stall.
        let (standardOutput, standardError) = readToEnd(output[0], errors[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
        return (code, String(decoding: standardOutput, as: UTF8.self), String(decoding: standardError, as: UTF8.self))
    }

    /// Reads `first` and `second` until both reach their end.
    private static func readToEnd(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var read: [[UInt8]] = [[], []]
        var open = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        var chunk = [UInt8](repeating: 0, count: 65536)
        while open.contains(where: { $0.fd >= 0 }) {
            // Interrupted, poll(2) leaves the last results in place: a stream read dry would then be read again,
            // and block.
            if poll(&open, nfds_t(open.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in open.indices where open[index].fd >= 0 && open[index].revents != 0 {
                let count = Glibc.read(open[index].fd, &chunk, chunk.count)
                if count > 0 {
                    read[index] += chunk[..<count]
                } else if count == 0 || errno != EINTR {
                    open[index].fd = -1
                }
            }
        }
        return (read[0], read[1])
    }
}
