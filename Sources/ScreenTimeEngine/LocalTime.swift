/// A moment of local wall-clock time, to the second, with no time zone: seconds since 1970-01-01T00:00:00 as a
/// clock on the wall would read them. Schedules match and name intervals in these terms, so that an interval keeps
/// its identity across clock and time-zone changes.
public struct LocalTime: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var secondsSince1970: Int64
    public init(secondsSince1970: Int64) { self.secondsSince1970 = secondsSince1970 }

    /// The local time of a Gregorian date and time of day. Fields out of range carry over (`hour: 24` is the next
    /// day's midnight).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        let days = Self.daysSince1970(year: year, month: month, day: day)
        secondsSince1970 = days * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }
    static func + (lhs: Self, seconds: Int64) -> Self { Self(secondsSince1970: lhs.secondsSince1970 + seconds) }
    static func - (lhs: Self, rhs: Self) -> Int64 { lhs.secondsSince1970 - rhs.secondsSince1970 }

    /// Days since 1970-01-01 (negative before).
    var day: Int64 { secondsSince1970.floorDivided(by: 86_400) }
    /// Seconds since local midnight, 0..<86 400.
    var secondOfDay: Int64 { secondsSince1970 - day * 86_400 }

    /// The Gregorian date and time of day.
    public var fields: (year: Int, month: Int, day: Int, weekday: Int, hour: Int, minute: Int, second: Int) {
        let date = Self.civilDate(daysSince1970: day)
        let seconds = Int(secondOfDay)
        return (
            date.year, date.month, date.day, Self.weekday(daysSince1970: day), seconds / 3_600, seconds / 60 % 60,
            seconds % 60
        )
    }

    public var description: String {
        let f = fields
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(f.year)-\(two(f.month))-\(two(f.day))T\(two(f.hour)):\(two(f.minute)):\(two(f.second))"
    }

    // Howard Hinnant's days_from_civil and civil_from_days, proleptic Gregorian.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilDate(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// 1 = Sunday … 7 = Saturday; 1970-01-01 was a Thursday.
    static func weekday(daysSince1970 days: Int64) -> Int {
        Int(((days + 4) % 7 + 7) % 7) + 1
    }
}
