import CLinux
import Foundation
import Glibc
import Logging
import ScreenTimeModel
import SystemPackage

/// Runs a monitor extension: an executable (a Swift program using `DeviceActivityMonitor`, or any script) started
/// for one callback as `EXE --callback NAME --activity NAME [--event NAME]`, with the same values in
/// `SCREENTIME_CALLBACK`, `SCREENTIME_ACTIVITY` and `SCREENTIME_EVENT`, under `ExtensionLimits`.
///
/// The extension runs in a process group of its own, with `/dev/null` as input; each line it writes is logged
/// (info for standard output, warning for standard error) with its path as `extension` metadata. When the process
/// exits, whatever it left running in its group is killed, as an extension's life ends with its callback. A
/// dedicated thread supervises each run, so no task of the cooperative pool blocks.
public struct ExtensionRunner: Sendable {
    /// The limits every run gets.
    public var limits: ExtensionLimits
    /// Where output lines and failures go.
    public var logger: Logger

    /// Variables of the daemon's own service manager that an extension must not inherit.
    static let privateVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// Creates a runner.
    public init(limits: ExtensionLimits = .standard, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// The arguments after the executable's path for one callback.
    public static func arguments(callback: MonitorCallback, activity: String, event: String?) -> [String] {
        var arguments = ["--callback", callback.rawValue, "--activity", activity]
        if let event { arguments += ["--event", event] }
        return arguments
    }

    /// Runs `executable` for `callback` of `activity` (and `event`, for the event callbacks) and waits for it.
    /// `environment` (default: the daemon's own, without its service manager's variables) gets the `SCREENTIME_*`
    /// variables added.
    public func run(
        executable: String, callback: MonitorCallback, activity: String, event: String? = nil,
        environment: [String: String]? = nil
    ) async -> ExtensionOutcome {
        var variables =
            environment ?? ProcessInfo.processInfo.environment.filter { !Self.privateVariables.contains($0.key) }
        variables["SCREENTIME_CALLBACK"] = callback.rawValue
        variables["SCREENTIME_ACTIVITY"] = activity
        if let event { variables["SCREENTIME_EVENT"] = event } else { variables["SCREENTIME_EVENT"] = nil }
        let supervision = ExtensionSupervision(
            executable: executable, arguments: Self.arguments(callback: callback, activity: activity, event: event),
            environment: variables, limits: limits,
            logger: {
                var logger = logger
                logger[metadataKey: "extension"] = "\(executable)"
                logger[metadataKey: "callback"] = "\(callback.rawValue)"
                return logger
            }())
        return await withCheckedContinuation { (done: CheckedContinuation<ExtensionOutcome, Never>) in
            let thread = Thread { done.resume(returning: supervision.run()) }
            thread.name = "extension"
            thread.start()
        }
    }
}
