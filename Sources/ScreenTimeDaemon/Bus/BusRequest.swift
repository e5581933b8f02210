import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine

/// One method call of the daemon's D-Bus API that reads or changes the daemon's state, as the bus thread hands it
/// to the engine loop's thread. The caller is not part of it: the handler learns the client from the caller's
/// process, never from an argument.
public enum BusRequest: Hashable, Sendable {
    /// `Daemon1.Status`: every limit's and downtime's state.
    case status
    /// `Daemon1.Reload`: read the policy file again.
    case reload
    /// `screentime extra`: more time today on a limit (empty: every limit that shields the caller now).
    case grantExtraTime(limit: String, seconds: UInt32)
    /// `Daemon1.AskForTime(seconds, reason)`: a limited user asks the guardian for more time.
    case ask(seconds: UInt32, reason: String)
    /// `Daemon1.Requests`: today's requests for more time.
    case requests
    /// `Daemon1.AnswerRequest(id, approve, seconds)`: the guardian approves or denies request `id` (0: every waiting
    /// one), giving `seconds` (0: what was asked for).
    case answerRequest(id: UInt32, approve: Bool, seconds: UInt32)
    /// `Daemon1.AnswerShield(limit, close)`: a button of the caller's shield notification of `limit`, as their agent
    /// relays it: close its apps, or take the extra time the policy offers.
    case answerShield(limit: String, close: Bool)
    /// `Authorization1.RequestAuthorization(member)`: `individual` or `child`.
    case requestAuthorization(member: String)
    /// `Authorization1.AuthorizationStatus`.
    case authorizationStatus
    /// `Authorization1.RevokeAuthorization`.
    case revokeAuthorization
    /// `Activities1.StartMonitoring(activity, activity_json)`.
    case startMonitoring(activity: String, json: String)
    /// `Activities1.StopMonitoring(activities)`; empty: all of the client's.
    case stopMonitoring([String])
    /// `Activities1.Activities`.
    case activities
    /// `Activities1.Activity(activity)`: the JSON it was started with.
    case activity(String)
    /// `Activities1.RemainingTime(activity, event)`.
    case remainingTime(activity: String, event: String)
    /// `Settings1.Settings(store)`.
    case settings(store: String)
    /// `Settings1.SetSettings(store, settings_json)`.
    case setSettings(store: String, json: String)
    /// `Settings1.SetSetting(store, key, value_json)`: one setting of a store, the others as they are.
    case setSetting(store: String, key: String, json: String)
    /// `Settings1.ClearSetting(store, key)`.
    case clearSetting(store: String, key: String)
    /// `Settings1.ClearAllSettings`: every store of the client.
    case clearAllSettings
    /// `Settings1.Stores`.
    case stores
    /// `Usage1.Report(from_ms, to_ms)`.
    case report(from: Date, to: Date)
    /// `Usage1.Segments(segment, from_ms, to_ms)`: `hourly`, `daily` or `weekly`.
    case segments(String, from: Date, to: Date)
    /// `Catalog1.Applications`.
    case applications
    /// `Catalog1.Application(bundle_identifier)`.
    case application(String)
    /// `Catalog1.Extensions`: the calling app's id and the extensions its desktop entry declares.
    case extensions

    /// The polkit action a caller other than root must be allowed, if the request needs one.
    public var polkitAction: String? {
        switch self {
        case .ask: "org.screentime.ask"
        case .answerRequest: "org.screentime.manage"
        default: nil
        }
    }

    /// The request a call of `interface`.`member` with `arguments` makes; sd-bus has checked the arguments'
    /// signature against the vtable already.
    ///
    /// - Throws: `.invalidArgument` for a method this type doesn't know or arguments it can't use.
    public init(
        interface: ScreenTimeBusName.Interface, member: String, arguments: [BusValue]
    ) throws(ScreenTimeBusError) {
        let strings = arguments.compactMap(\.stringValue)
        func string(_ index: Int) -> String { index < strings.count ? strings[index] : "" }
        func milliseconds(_ index: Int) throws(ScreenTimeBusError) -> Date {
            guard index < arguments.count, case .int64(let value) = arguments[index] else {
                throw Self.malformed(member)
            }
            guard Self.times.contains(value) else {
                throw ScreenTimeBusError(
                    .invalidArgument,
                    "\(member): \(value) is not a time: give milliseconds since 1970, from 0 to "
                        + "\(Self.times.upperBound) (the end of the year 9999)")
            }
            return Date(timeIntervalSince1970: TimeInterval(value) / 1000)
        }
        switch (interface, member) {
        case (.daemon, "Status"): self = .status
        case (.daemon, "Reload"): self = .reload
        case (.daemon, "GrantExtraTime"):
            guard arguments.count == 2, case .uint32(let seconds) = arguments[1] else { throw Self.malformed(member) }
            self = .grantExtraTime(limit: string(0), seconds: seconds)
        case (.daemon, "AskForTime"):
            guard arguments.count == 2, case .uint32(let seconds) = arguments[0] else { throw Self.malformed(member) }
            self = .ask(seconds: seconds, reason: string(0))
        case (.daemon, "Requests"): self = .requests
        case (.daemon, "AnswerShield"):
            guard arguments.count == 2, case .boolean(let close) = arguments[1] else { throw Self.malformed(member) }
            self = .answerShield(limit: string(0), close: close)
        case (.daemon, "AnswerRequest"):
            guard arguments.count == 3, case .uint32(let id) = arguments[0], case .boolean(let approve) = arguments[1],
                case .uint32(let seconds) = arguments[2]
            else { throw Self.malformed(member) }
            self = .answerRequest(id: id, approve: approve, seconds: seconds)
        case (.authorization, "RequestAuthorization"): self = .requestAuthorization(member: string(0))
        case (.authorization, "AuthorizationStatus"): self = .authorizationStatus
        case (.authorization, "RevokeAuthorization"): self = .revokeAuthorization
        case (.activities, "StartMonitoring"): self = .startMonitoring(activity: string(0), json: string(1))
        case (.activities, "StopMonitoring"):
            guard case .array(_, let names)? = arguments.first else { throw Self.malformed(member) }
            self = .stopMonitoring(names.compactMap(\.stringValue))
        case (.activities, "Activities"): self = .activities
        case (.activities, "Activity"): self = .activity(string(0))
        case (.activities, "RemainingTime"): self = .remainingTime(activity: string(0), event: string(1))
        case (.settings, "Settings"): self = .settings(store: string(0))
        case (.settings, "SetSettings"): self = .setSettings(store: string(0), json: string(1))
        case (.settings, "SetSetting"): self = .setSetting(store: string(0), key: string(1), json: string(2))
        case (.settings, "ClearSetting"): self = .clearSetting(store: string(0), key: string(1))
        case (.settings, "ClearAllSettings"): self = .clearAllSettings
        case (.settings, "Stores"): self = .stores
        case (.usage, "Report"): self = .report(from: try milliseconds(0), to: try milliseconds(1))
        case (.usage, "Segments"): self = .segments(string(0), from: try milliseconds(1), to: try milliseconds(2))
        case (.catalog, "Applications"): self = .applications
        case (.catalog, "Application"): self = .application(string(0))
        case (.catalog, "Extensions"): self = .extensions
        default:
            throw ScreenTimeBusError(.invalidArgument, "\(interface.rawValue) has no method \(member)")
        }
    }

    /// The times a report may span, in milliseconds since 1970: those a calendar and the ledger read.
    static let times: ClosedRange<Int64> = 0...253_402_300_799_999

    private static func malformed(_ member: String) -> ScreenTimeBusError {
        ScreenTimeBusError(.invalidArgument, "the arguments of \(member) could not be read")
    }
}

/// What the daemon answers a `BusRequest` with, as the reply's arguments.
public enum BusAnswer: Hashable, Sendable {
    /// No arguments.
    case nothing
    /// A number (`u`): a request's id.
    case number(UInt32)
    /// One string (`s`): a status, or JSON.
    case text(String)
    /// An array of strings (`as`).
    case texts([String])
    /// Two durations in whole seconds (`tt`): used and remaining.
    case seconds(used: UInt64, remaining: UInt64)

    /// The reply's arguments.
    public var values: [BusValue] {
        switch self {
        case .nothing: []
        case .number(let number): [.uint32(number)]
        case .text(let text): [.string(text)]
        case .texts(let texts): [.array(elementSignature: "s", texts.map(BusValue.string))]
        case .seconds(let used, let remaining): [.uint64(used), .uint64(remaining)]
        }
    }
}

/// What answers the daemon's D-Bus requests: the `Daemon`, on its engine loop's thread. A test may answer them with
/// anything else.
public protocol BusRequestHandler: AnyObject {
    /// Answers `request` from the process `caller` at `now`, or says why not.
    func answer(_ request: BusRequest, from caller: CallerProcess, at now: Now) -> Result<BusAnswer, ScreenTimeBusError>
}
