import Foundation
import ScreenTimeEngine
import ScreenTimeModel

extension DateComponents {
    /// The components as a calendar pattern; only Gregorian date and time fields are supported.
    ///
    /// `calendar` and `timeZone` are ignored: schedules run in the system's time zone, as on Apple's devices.
    func calendarPattern(named field: String) throws(MonitoringError) -> CalendarPattern {
        if let unsupported = unsupportedFieldName(allowing: [.nanosecondZero]) {
            throw .invalidDateComponents(reason: "\(field): \(unsupported) is not supported in a schedule")
        }
        let pattern = CalendarPattern(
            year: year, month: month, day: day, weekday: weekday, hour: hour, minute: minute, second: second)
        if let reason = pattern.invalidityReason { throw .invalidDateComponents(reason: "\(field): \(reason)") }
        return pattern
    }

    /// The components as a span of time: days, hours, minutes, seconds and nanoseconds add up.
    func duration(named field: String) throws(MonitoringError) -> Duration {
        if let unsupported = unsupportedFieldName(allowing: [.nanosecond]) ?? calendarFieldName {
            throw .invalidDateComponents(reason: "\(field): \(unsupported) cannot express a span of time")
        }
        let parts = [("day", day, Int64(86_400)), ("hour", hour, 3_600), ("minute", minute, 60), ("second", second, 1)]
        var total = Duration.zero
        for (name, value, seconds) in parts {
            guard let value else { continue }
            guard value >= 0 else { throw .invalidDateComponents(reason: "\(field): \(name) \(value) is negative") }
            total += .seconds(Int64(value) * seconds)
        }
        if let nanosecond {
            guard nanosecond >= 0 else {
                throw .invalidDateComponents(reason: "\(field): nanosecond \(nanosecond) is negative")
            }
            total += .nanoseconds(nanosecond)
        }
        return total
    }

    private enum Allowance { case nanosecond, nanosecondZero }

    /// The first set field that neither use allows: era, quarter, weeks, ordinals, leap months, and nanoseconds
    /// other than 0 in a pattern.
    private func unsupportedFieldName(allowing allowance: Set<Allowance>) -> String? {
        if era != nil { return "era" }
        if quarter != nil { return "quarter" }
        if weekOfMonth != nil { return "weekOfMonth" }
        if weekOfYear != nil { return "weekOfYear" }
        if yearForWeekOfYear != nil { return "yearForWeekOfYear" }
        if weekdayOrdinal != nil { return "weekdayOrdinal" }
        if isLeapMonth == true { return "isLeapMonth" }
        if let nanosecond {
            if allowance.contains(.nanosecond) { return nil }
            if !(allowance.contains(.nanosecondZero) && nanosecond == 0) { return "nanosecond" }
        }
        return nil
    }

    /// A set field that names a place on the calendar rather than a length.
    private var calendarFieldName: String? {
        if year != nil { return "year" }
        if month != nil { return "month" }
        if weekday != nil { return "weekday" }
        return nil
    }
}
