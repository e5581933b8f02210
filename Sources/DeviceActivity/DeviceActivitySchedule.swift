import Foundation
import ScreenTimeEngine
import ScreenTimeModel

/// When an activity is monitored: Apple's `DeviceActivitySchedule`.
///
/// ```swift
/// let schedule = DeviceActivitySchedule(
///     intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
///     repeats: true, warningTime: DateComponents(minute: 5))
/// ```
///
/// An interval starts at a local time matching `intervalStart` and ends at the first later one matching
/// `intervalEnd` (`22:00`–`07:00` spans midnight; add `weekday` for one day of the week). Components are matched
/// in the Gregorian calendar and the system time zone; their own `calendar` and `timeZone` are ignored.
public struct DeviceActivitySchedule: Hashable, Sendable, Codable {
    public let intervalStart: DateComponents
    public let intervalEnd: DateComponents
    /// Whether the schedule repeats; one that does not stops after its first interval.
    public let repeats: Bool
    /// How long before the interval's start and end, and before each event's threshold, warnings come.
    public let warningTime: DateComponents?

    public init(
        intervalStart: DateComponents, intervalEnd: DateComponents, repeats: Bool, warningTime: DateComponents? = nil
    ) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }

    /// The interval in progress now, or else the next one, in the system time zone; `nil` if the components are
    /// invalid or never match.
    public var nextInterval: DateInterval? {
        nextInterval(at: Date(), in: .current)
    }

    /// The interval in progress at `date`, or else the next one, in `timeZone`.
    public func nextInterval(at date: Date, in timeZone: TimeZone) -> DateInterval? {
        guard let schedule = try? activitySchedule() else { return nil }
        return schedule.currentOrNextInterval(at: WallClockInstant(date), in: timeZone).map(DateInterval.init)
    }

    /// The schedule in the engine's terms, or why it cannot be.
    public func activitySchedule() throws(MonitoringError) -> ActivitySchedule {
        ActivitySchedule(
            intervalStart: try intervalStart.calendarPattern(named: "intervalStart"),
            intervalEnd: try intervalEnd.calendarPattern(named: "intervalEnd"), repeats: repeats,
            warningTime: try warningTime?.duration(named: "warningTime"))
    }
}

extension WallClockInstant {
    /// The instant of a Foundation date, to the nanosecond.
    public init(_ date: Date) {
        self.init(nanosecondsSince1970: Int64((date.timeIntervalSince1970 * 1e9).rounded()))
    }
}

extension Date {
    /// The date of a wall-clock instant.
    public init(_ instant: WallClockInstant) {
        self.init(timeIntervalSince1970: Double(instant.nanosecondsSince1970) / 1e9)
    }
}

extension DateInterval {
    /// The wall-clock span of a scheduled interval.
    public init(_ interval: ScheduledInterval) {
        self.init(start: Date(interval.start), end: Date(interval.end))
    }
}
