import ScreenTimeModel

import struct Foundation.TimeZone

/// One interval of an activity's schedule: its local start and end as the schedule names them, and the wall-clock
/// instants at which they fall in the engine's time zone.
///
/// `localStart` identifies the interval: the engine never starts two intervals with the same one, whatever the
/// clock or time zone does.
public struct ScheduledInterval: Hashable, Sendable, Codable, CustomStringConvertible {
    public var localStart: LocalTime
    public var localEnd: LocalTime
    public var start: WallClockInstant
    public var end: WallClockInstant

    public var description: String { "\(localStart)–\(localEnd)" }

    /// The scheduled length in local time (daylight-saving changes inside do not alter it).
    public var localLength: Duration { .seconds(localEnd - localStart) }
}

extension ActivitySchedule {
    /// The interval in progress at `instant`, or else the next one, in `timeZone`; `nil` if there is none.
    public func currentOrNextInterval(at instant: WallClockInstant, in timeZone: TimeZone) -> ScheduledInterval? {
        currentOrNextInterval(at: instant, in: ZoneRules(timeZone: timeZone), longestInterval: nil)
    }

    func currentOrNextInterval(at instant: WallClockInstant, in zone: ZoneRules, longestInterval: Duration?)
        -> ScheduledInterval?
    {
        interval(containing: instant, in: zone)
            ?? firstInterval(
                startingAtOrAfter: zone.localTime(at: instant), endingAfter: instant, in: zone,
                longestInterval: longestInterval)
    }

    /// The interval that starts at `localStart`, or `nil` when the end pattern never matches after it.
    func interval(startingAt localStart: LocalTime, in zone: ZoneRules) -> ScheduledInterval? {
        guard let localEnd = intervalEnd.firstMatch(atOrAfter: localStart + 1) else { return nil }
        return ScheduledInterval(
            localStart: localStart, localEnd: localEnd,
            start: zone.firstInstant(atOrAfter: localStart), end: zone.firstInstant(atOrAfter: localEnd))
    }

    /// The interval in force at `instant`: the latest start at or before it whose interval has not ended.
    func interval(containing instant: WallClockInstant, in zone: ZoneRules) -> ScheduledInterval? {
        let local = zone.localTime(at: instant)
        guard let localStart = intervalStart.lastMatch(atOrBefore: local),
            let interval = interval(startingAt: localStart, in: zone),
            interval.start <= instant, instant < interval.end
        else { return nil }
        return interval
    }

    /// The first interval that starts at or after `lowerBound` (local) and is still running or ahead at `instant`.
    /// Intervals that lie wholly before `instant` are skipped: nothing was there to see them.
    ///
    /// - Parameter longestInterval: the longest an interval may be, which lets a search after a long clock jump
    ///   start near `instant` rather than walk every interval since `lowerBound`.
    func firstInterval(
        startingAtOrAfter lowerBound: LocalTime, endingAfter instant: WallClockInstant, in zone: ZoneRules,
        longestInterval: Duration?
    ) -> ScheduledInterval? {
        var lowerBound = lowerBound
        if let longestInterval {
            // An interval ending after `instant` started at most `longestInterval` (plus a day of zone offsets)
            // before it.
            let earliest = zone.localTime(at: instant) + (-(longestInterval.nanoseconds / 1_000_000_000) - 86_400)
            lowerBound = max(lowerBound, earliest)
        }
        for _ in 0..<10_000 {
            guard let localStart = intervalStart.firstMatch(atOrAfter: lowerBound),
                let interval = interval(startingAt: localStart, in: zone)
            else { return nil }
            if interval.end > instant { return interval }
            lowerBound = interval.localEnd
        }
        return nil
    }
}
