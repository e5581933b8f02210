import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeDaemon
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// Options that point at the daemon's files.
struct DaemonOptions: ParsableArguments {
    @Flag(help: "Read the guardian (system) daemon's state instead of the calling user's.")
    var system = false

    @Option(help: ArgumentHelp("The usage database.", valueName: "path"))
    var database: String?

    @Option(help: ArgumentHelp("The policy file.", valueName: "path"))
    var policy: String?

    @Option(help: ArgumentHelp("The token key file.", valueName: "path"))
    var tokenKey: String?

    /// Where the running daemon answers: the session bus, the system bus with --system, `$SCREENTIME_BUS_ADDRESS`
    /// over both.
    var endpoint: DaemonConnection.Endpoint { Self.endpoint(system: system) }

    static func endpoint(system: Bool) -> DaemonConnection.Endpoint {
        ProcessInfo.processInfo.environment["SCREENTIME_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : .address($0) }
            ?? (system ? .system : .session)
    }

    var settings: DaemonSettings {
        var settings = DaemonSettings.defaults(system: system)
        if let database { settings.databasePath = database }
        if let policy { settings.policyPath = policy }
        if let tokenKey { settings.tokenKeyPath = tokenKey }
        return settings
    }

    /// The database, or a clear failure when the daemon has not written one yet.
    func openDatabase(_ settings: DaemonSettings? = nil) throws -> UsageDatabase {
        let settings = settings ?? self.settings
        let path = settings.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            let unit = settings.system ? "systemctl status screentimed" : "systemctl --user status screentimed"
            printError("screentime: no usage database at \(path): has screentimed run yet? (\(unit))")
            throw ExitCode(1)
        }
        guard access(path, R_OK) == 0 else {
            printError(
                "screentime: cannot read the usage database \(path): \(String(cString: strerror(errno))) "
                    + "(the guardian daemon's store is root's: run it as root)")
            throw ExitCode(1)
        }
        do {
            return try UsageDatabase.openExisting(at: path)
        } catch let error as UsageDatabase.UnusableFile {
            let unit = settings.system ? "systemctl restart screentimed" : "systemctl --user restart screentimed"
            printError(
                "screentime: the usage database \(path) cannot be read: \(error.reason); screentimed moves it aside "
                    + "and starts a new one when it starts (\(unit))")
            throw ExitCode(1)
        }
    }
}

/// `screentime status`: each limit's use, what remains, when it resets, and what is shielded now.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each limit and downtime: used, remaining, next reset, shielded now.",
        discussion: """
            Asked of the running daemon over D-Bus (org.screentime.Daemon1.Status): the session bus's, or the \
            system bus's with --system ($SCREENTIME_BUS_ADDRESS overrides both). Each user sees their own limits; \
            root sees every user's of the guardian daemon, or one user's with --user NAME (which implies --system). \
            Exits with 3 when screentimed is not running.
            """)

    @OptionGroup var daemon: DaemonOptions

    @OptionGroup var whose: UserOption

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    typealias Row = DaemonStatus.Row

    /// The exit status when no daemon answers.
    static let notRunningStatus: Int32 = 3

    /// Says why the daemon did not answer `command` and gives its exit status: `screentimed is not running` and 3
    /// (systemctl's convention) when it is not reachable, the daemon's refusal and 1 otherwise.
    static func exit(for error: ScreenTimeBusError, in command: String) -> ExitCode {
        if error.code == .unavailable {
            printError("screentimed is not running")
            return ExitCode(notRunningStatus)
        }
        printError("\(command): \(error.message)")
        return ExitCode(1)
    }

    func run() async throws {
        var status: DaemonStatus
        let (user, settings) = try whose.resolve(daemon)
        do {
            // Asked without starting it: a daemon stopped (as by `stop --release`) is not started again by the bus.
            let text = try DaemonConnection(DaemonOptions.endpoint(system: settings.system)).callForString(
                .daemon, "Status", startingDaemon: false)
            status = try BusJSON.decode(DaemonStatus.self, from: text)
            if whose.user != nil { status.rows.removeAll { $0.user != user.rawValue } }
        } catch {
            throw Self.exit(for: error, in: "screentime status")
        }
        if json {
            try printJSON(status)
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "EEE HH:mm:ss"
        printText(
            "screentimed (\(status.mode)) as of \(formatter.string(from: status.asOf)), policy \(status.policyPath)")
        if let error = status.policyError { printText("  policy refused, the previous one stays in force:\n\(error)") }
        if let fault = status.storeFault { printText("  usage store: \(fault); enforcing from memory") }
        for path in status.movedAside { printText("  a damaged usage database was moved aside: \(path)") }
        // Rows of several users (root, guardian mode) are named by their user.
        let named = Set(status.rows.map(\.user)).count > 1 || whose.user != nil
        for row in status.rows {
            let when = row.nextReset.map { formatter.string(from: $0) } ?? "-"
            let who =
                named
                ? (getpwuid(row.user).map { String(cString: $0.pointee.pw_name) } ?? "uid \(row.user)") + ": " : ""
            if row.kind == "limit" {
                printText(
                    "  \(who)limit \(row.name.oneLine): used \(clock(row.usedSeconds)) of \(clock(row.limitSeconds)), "
                        + "\(clock(row.remainingSeconds)) left, resets \(when)" + (row.shielded ? " · SHIELDED" : ""))
            } else {
                printText(
                    "  \(who)downtime \(row.name.oneLine): "
                        + (row.shielded ? "in force until \(when)" : "next from \(when)"))
            }
        }
    }

    private func clock(_ seconds: Int?) -> String {
        seconds.map { NowTable.format(.seconds($0)) } ?? "-"
    }
}
