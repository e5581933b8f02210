/// Which local wall-clock moments a schedule boundary matches: the Gregorian date and time fields of Apple's
/// `DateComponents` that a `DeviceActivitySchedule` may use, without Foundation.
///
/// Matching follows `Calendar.nextDate(after:matching:)`: a field left `nil` is free when a finer field is set
/// (`minute: 30` alone matches every hour at :30) and otherwise takes its smallest value (`hour: 9` alone matches
/// 09:00:00). `weekday` counts as a day-level field, 1 = Sunday … 7 = Saturday, as in Foundation's Gregorian
/// calendar.
public struct CalendarPattern: Hashable, Sendable, Codable, CustomStringConvertible {
    public var year: Int?
    public var month: Int?
    public var day: Int?
    public var weekday: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?

    public init(
        year: Int? = nil, month: Int? = nil, day: Int? = nil, weekday: Int? = nil,
        hour: Int? = nil, minute: Int? = nil, second: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.weekday = weekday
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Whether no field is set: such a pattern matches nothing and is refused.
    public var isEmpty: Bool {
        year == nil && month == nil && day == nil && weekday == nil && hour == nil && minute == nil && second == nil
    }

    /// Why the pattern cannot match any moment, or `nil` when every set field is in range.
    public var invalidityReason: String? {
        if isEmpty { return "no date or time field is set" }
        let ranges: [(String, Int?, ClosedRange<Int>)] = [
            ("year", year, 1...9999), ("month", month, 1...12), ("day", day, 1...31), ("weekday", weekday, 1...7),
            ("hour", hour, 0...23), ("minute", minute, 0...59), ("second", second, 0...59),
        ]
        for (name, value, range) in ranges {
            if let value, !range.contains(value) {
                return "\(name) \(value) is outside \(range.lowerBound)...\(range.upperBound)"
            }
        }
        return nil
    }

    public var description: String {
        var parts: [String] = []
        if let year { parts.append("year: \(year)") }
        if let month { parts.append("month: \(month)") }
        if let day { parts.append("day: \(day)") }
        if let weekday { parts.append("weekday: \(weekday)") }
        if let hour { parts.append("hour: \(hour)") }
        if let minute { parts.append("minute: \(minute)") }
        if let second { parts.append("second: \(second)") }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}
