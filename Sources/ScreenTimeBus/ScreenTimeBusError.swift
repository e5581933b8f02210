import Foundation
import ScreenTimeEngine

/// Why the daemon refused a call, or why it could not be reached: each case is one D-Bus error name
/// (`org.screentime.Error.IntervalTooShort`, …), so that any language can tell them apart.
public struct ScreenTimeBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as the D-Bus error names say it.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The schedule's interval is shorter than the minimum (15 minutes unless the daemon is set otherwise).
        case intervalTooShort = "org.screentime.Error.IntervalTooShort"
        /// The schedule's interval is longer than the maximum (one week).
        case intervalTooLong = "org.screentime.Error.IntervalTooLong"
        /// The client monitors as many activities as it may (20 unless the daemon is set otherwise).
        case tooManyActivities = "org.screentime.Error.TooManyActivities"
        /// A schedule's or event's date components can't be used.
        case invalidDateComponents = "org.screentime.Error.InvalidDateComponents"
        /// The caller is not authorized (it has not asked, or was refused), or its identity can't be established.
        case notAuthorized = "org.screentime.Error.NotAuthorized"
        /// An argument is not valid: unknown member, malformed JSON, empty name.
        case invalidArgument = "org.screentime.Error.InvalidArgument"
        /// The named activity is not monitored by this client.
        case noSuchActivity = "org.screentime.Error.NoSuchActivity"
        /// `.child` was asked for, which needs guardian mode (the system daemon and polkit); not available yet.
        case guardianModeUnavailable = "org.screentime.Error.GuardianModeUnavailable"
        /// The policy file was refused; the previous policy stays in force.
        case invalidPolicy = "org.screentime.Error.InvalidPolicy"
        /// The daemon failed to do what was asked (its store could not be written).
        case failed = "org.screentime.Error.Failed"
        /// The daemon is not running, or the bus can't be reached (client side only; never sent by the daemon).
        case unavailable = "org.screentime.Error.Unavailable"
    }

    public var code: Code
    /// For a person: what, where, and how to fix it.
    public var message: String
    /// The monitoring error behind the refusal, for the codes that come from one.
    public var monitoringError: MonitoringError?

    /// An error of `code` with `message`.
    public init(_ code: Code, _ message: String, monitoringError: MonitoringError? = nil) {
        self.code = code
        self.message = message
        self.monitoringError = monitoringError
    }

    /// The refusal of a monitoring request, with the error's typed payload.
    public init(_ error: MonitoringError) {
        let code: Code =
            switch error {
            case .excessiveActivities: .tooManyActivities
            case .intervalTooLong: .intervalTooLong
            case .intervalTooShort: .intervalTooShort
            case .invalidDateComponents: .invalidDateComponents
            case .unauthorized: .notAuthorized
            }
        self.init(code, error.description, monitoringError: error)
    }

    /// The text sent as the D-Bus error's message: the message for people, and for a monitoring refusal a second
    /// line holding the `MonitoringError` as JSON (`{"intervalTooShort":{"length":…,"minimum":…}}`).
    public var wireMessage: String {
        guard let monitoringError, let json = try? JSONEncoder().encode(monitoringError) else { return message }
        return message + "\n" + String(decoding: json, as: UTF8.self)
    }

    /// The error a D-Bus reply named `name` with `wireMessage` stands for; nil for names outside
    /// `org.screentime.Error`.
    public init?(name: String, wireMessage: String) {
        guard let code = Code(rawValue: name) else { return nil }
        let lines = wireMessage.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let payload = lines.count == 2 ? lines[1] : nil
        self.init(
            code, String(lines.first ?? ""),
            monitoringError: payload.flatMap { try? JSONDecoder().decode(MonitoringError.self, from: Data($0.utf8)) })
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
