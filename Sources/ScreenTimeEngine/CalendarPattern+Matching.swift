import ScreenTimeModel

extension CalendarPattern {
    /// How far a search for a matching moment looks: 29 years covers every day-of-month, month and weekday
    /// combination, February 29th on a given weekday included.
    static let searchHorizonDays: Int64 = 29 * 366

    /// The first local time at or after `start` that the pattern matches, or `nil` if none within the horizon.
    func firstMatch(atOrAfter start: LocalTime) -> LocalTime? {
        let times = timesOfDay
        let firstDay = start.day
        for day in firstDay..<(firstDay + Self.searchHorizonDays) {
            guard matches(daysSince1970: day) else { continue }
            let floor = day == firstDay ? start.secondOfDay : 0
            if let time = times.first(where: { $0 >= floor }) {
                return LocalTime(secondsSince1970: day * 86_400 + time)
            }
        }
        return nil
    }

    /// The last local time at or before `end` that the pattern matches, or `nil` if none within the horizon.
    func lastMatch(atOrBefore end: LocalTime) -> LocalTime? {
        let times = timesOfDay
        let lastDay = end.day
        for day in stride(from: lastDay, to: lastDay - Self.searchHorizonDays, by: -1) {
            guard matches(daysSince1970: day) else { continue }
            let ceiling = day == lastDay ? end.secondOfDay : 86_399
            if let time = times.last(where: { $0 <= ceiling }) {
                return LocalTime(secondsSince1970: day * 86_400 + time)
            }
        }
        return nil
    }

    /// Whether the date fields match a day.
    private func matches(daysSince1970 dayNumber: Int64) -> Bool {
        let date = LocalTime.civilDate(daysSince1970: dayNumber)
        let timeIsSet = hour != nil || minute != nil || second != nil
        if let year, date.year != year { return false }
        // A date field left nil is free when a finer field is set, and otherwise takes its smallest value.
        if let month {
            if date.month != month { return false }
        } else if self.day == nil, weekday == nil, !timeIsSet, date.month != 1 {
            return false
        }
        if let weekday, LocalTime.weekday(daysSince1970: dayNumber) != weekday { return false }
        if let day = self.day {
            if date.day != day { return false }
        } else if weekday == nil, !timeIsSet, date.day != 1 {
            return false
        }
        return true
    }

    /// The matching seconds of a day, ascending.
    private var timesOfDay: [Int64] {
        let hours = hour.map { [$0] } ?? ((minute != nil || second != nil) ? Array(0..<24) : [0])
        let minutes = minute.map { [$0] } ?? (second != nil ? Array(0..<60) : [0])
        let seconds = second.map { [$0] } ?? [0]
        var times: [Int64] = []
        times.reserveCapacity(hours.count * minutes.count * seconds.count)
        for h in hours { for m in minutes { for s in seconds { times.append(Int64(h * 3_600 + m * 60 + s)) } } }
        return times
    }
}
