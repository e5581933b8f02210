import CLinux
import Foundation
import Glibc
import Logging
import ScreenTimeModel
import SystemPackage

/// Runs extensions, first of all monitor extensions: an executable (a Swift program using `DeviceActivityMonitor`, or any script) started
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

    /// Runs `executable` for `callback` of `activity` (and `event`, for the event callbacks) as `user` (default: the
    /// daemon's own account) and waits for it. `environment` (default: the daemon's own, without its service
    /// manager's variables) gets the `SCREENTIME_*` variables added.
    public func run(
        executable: String, callback: MonitorCallback, activity: String, event: String? = nil,
        environment: [String: String]? = nil, user: ScreenTimeModel.UserID? = nil
    ) async -> ExtensionOutcome {
        var variables = environment ?? Self.inheritedEnvironment()
        variables["SCREENTIME_CALLBACK"] = callback.rawValue
        variables["SCREENTIME_ACTIVITY"] = activity
        if let event { variables["SCREENTIME_EVENT"] = event } else { variables["SCREENTIME_EVENT"] = nil }
        return await run(
            executable: executable, arguments: Self.arguments(callback: callback, activity: activity, event: event),
            environment: variables, user: user, label: callback.rawValue)
    }

    /// Runs any extension (monitor, shield configuration, shield action, report) with `arguments` and `environment`
    /// as `user` (default: the daemon's own account) and waits for it. Never as root: an extension whose account
    /// would be root fails to start, and so does one for another user unless the daemon runs as root.
    public func run(
        executable: String, arguments: [String], environment: [String: String], user: ScreenTimeModel.UserID? = nil, label: String
    ) async -> ExtensionOutcome {
        var logger = logger
        logger[metadataKey: "extension"] = "\(executable)"
        logger[metadataKey: "callback"] = "\(label)"
        let account: ExtensionSupervision.Account?
        switch Self.account(for: user) {
        case .success(let value): account = value
        case .failure(let error):
            logger.error("refusing to run the extension", metadata: ["error": "\(error)"])
            return ExtensionOutcome(
                termination: .failedToStart(error), timedOut: false, exceededMemoryLimit: false, output: [])
        }
        let supervision = ExtensionSupervision(
            executable: executable, arguments: arguments, environment: environment, account: account, limits: limits,
            logger: logger)
        return await withCheckedContinuation { (done: CheckedContinuation<ExtensionOutcome, Never>) in
            let thread = Thread { done.resume(returning: supervision.run()) }
            thread.name = "extension"
            thread.start()
        }
    }

    /// The account of `nobody`, which a root daemon's policy extensions run as.
    static let nobody: uid_t = 65534

    /// The daemon's environment without its service manager's variables.
    public static func inheritedEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !privateVariables.contains($0.key) }
    }

    /// The account to switch to before the run (nil: stay the daemon's), or why the run is refused. A daemon
    /// running as root runs an extension named for no user (the policy's) as `nobody`, and refuses one for root.
    ///
    /// The C function is `getpwuid_r(3)`, for the user's group.
    static func account(for user: ScreenTimeModel.UserID?) -> Result<ExtensionSupervision.Account?, DaemonServiceError> {
        let own = getuid()
        let target = user?.rawValue ?? (own == 0 ? nobody : own)
        guard target != 0 else {
            return .failure(
                DaemonServiceError(
                    .extensionStartFailed,
                    "extensions never run as root: an app of root declared this one; run it as another user"))
        }
        if target == own { return .success(nil) }
        guard own == 0 else {
            return .failure(
                DaemonServiceError(
                    .extensionStartFailed,
                    "cannot run an extension as uid \(target) from uid \(own): only a daemon running as root may"))
        }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(target, &entry, &buffer, buffer.count, &result) == 0, result != nil else {
            return .failure(
                DaemonServiceError(.extensionStartFailed, "uid \(target) has no account (getpwuid_r found none)"))
        }
        return .success(ExtensionSupervision.Account(user: target, group: entry.pw_gid))
    }
}
