import Foundation
import Glibc

/// The entry point of a monitor extension: a program that links `DeviceActivity`, subclasses
/// `DeviceActivityMonitor`, and is run by `screentimed` once per callback as
/// `EXE --callback eventDidReachThreshold --activity daily --event games` (the same values are also in
/// `SCREENTIME_CALLBACK`, `SCREENTIME_ACTIVITY` and `SCREENTIME_EVENT`; arguments win).
///
/// ```swift
/// import DeviceActivity
///
/// final class MyMonitor: DeviceActivityMonitor {
///     override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
///         print("limit \(event.rawValue)")
///     }
/// }
///
/// @main struct Main {
///     static func main() async { await DeviceActivityMonitorMain.run(MyMonitor()) }
/// }
/// ```
public enum DeviceActivityMonitorMain {
    /// A callback's name on the command line (the list the daemon runs extensions with).
    public typealias Callback = MonitorCallback

    /// One run's request: which callback, for which activity and event.
    public struct Invocation: Hashable, Sendable {
        /// The callback to call.
        public var callback: Callback
        /// The activity it is about.
        public var activity: DeviceActivityName
        /// The event, for the event callbacks.
        public var event: DeviceActivityEvent.Name?

        /// Creates an invocation.
        public init(callback: Callback, activity: DeviceActivityName, event: DeviceActivityEvent.Name? = nil) {
            self.callback = callback
            self.activity = activity
            self.event = event
        }
    }

    /// Arguments that name no callback, an unknown one, or leave out a name it needs.
    public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong, for the person running the program by hand.
        public var message: String
        /// The message followed by the usage line.
        public var description: String {
            "\(message)\nusage: EXE --callback NAME --activity NAME [--event NAME]\n"
                + "callbacks: \(Callback.allCases.map(\.rawValue).joined(separator: ", "))"
        }
    }

    /// Reads the invocation from `arguments` (without the program's name; `--name value` or `--name=value`), falling
    /// back to `environment` for what the arguments leave out.
    public static func parse(arguments: [String], environment: [String: String] = [:]) throws(UsageError)
        -> Invocation
    {
        var values: [String: String] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError(message: "unexpected argument \(argument)") }
            let option = argument.dropFirst(2)
            if let equals = option.firstIndex(of: "=") {
                values[String(option[..<equals])] = String(option[option.index(after: equals)...])
            } else {
                index += 1
                guard index < arguments.endIndex else { throw UsageError(message: "\(argument) needs a value") }
                values[String(option)] = arguments[index]
            }
            index += 1
        }
        for (key, name) in [
            ("callback", "SCREENTIME_CALLBACK"), ("activity", "SCREENTIME_ACTIVITY"), ("event", "SCREENTIME_EVENT"),
        ]
        where values[key] == nil {
            values[key] = environment[name]
        }
        if let unknown = values.keys.first(where: { !["callback", "activity", "event"].contains($0) }) {
            throw UsageError(message: "unknown option --\(unknown)")
        }
        guard let name = values["callback"] else { throw UsageError(message: "no --callback given") }
        guard let callback = Callback(rawValue: name) else { throw UsageError(message: "unknown callback \(name)") }
        guard let activity = values["activity"], !activity.isEmpty else {
            throw UsageError(message: "no --activity given")
        }
        let event = values["event"].flatMap { $0.isEmpty ? nil : DeviceActivityEvent.Name(rawValue: $0) }
        if callback.takesEvent && event == nil { throw UsageError(message: "\(name) needs --event") }
        return Invocation(
            callback: callback, activity: DeviceActivityName(rawValue: activity),
            event: callback.takesEvent ? event : nil)
    }

    /// Calls the method `invocation` names on `monitor` (the subclass's override, or the default that does nothing).
    public static func dispatch(_ invocation: Invocation, to monitor: DeviceActivityMonitor) {
        let activity = invocation.activity
        switch invocation.callback {
        case .intervalDidStart: monitor.intervalDidStart(for: activity)
        case .intervalDidEnd: monitor.intervalDidEnd(for: activity)
        case .intervalWillStartWarning: monitor.intervalWillStartWarning(for: activity)
        case .intervalWillEndWarning: monitor.intervalWillEndWarning(for: activity)
        case .eventWillReachThresholdWarning:
            if let event = invocation.event { monitor.eventWillReachThresholdWarning(event, activity: activity) }
        case .eventDidReachThreshold:
            if let event = invocation.event { monitor.eventDidReachThreshold(event, activity: activity) }
        }
    }

    /// Parses this process's arguments and environment, calls the callback on `monitor`, flushes standard output and
    /// exits: status 0, or 64 (`EX_USAGE`) with the problem on standard error.
    public static func run(_ monitor: DeviceActivityMonitor) async -> Never {
        do {
            let invocation = try parse(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            dispatch(invocation, to: monitor)
            // print() buffers standard output when it is a pipe, as it is under screentimed: flush every stream.
            fflush(nil)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(64)
        }
    }
}
