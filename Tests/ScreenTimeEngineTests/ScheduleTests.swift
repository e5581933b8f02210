import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// The interval in force at, or next after, a local time: the schedule arithmetic every engine test stands on.
@Suite struct ScheduleTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var start: CalendarPattern
        var end: CalendarPattern
        /// Local time asked about.
        var at: LocalTime
        var expectedStart: LocalTime
        var expectedEnd: LocalTime
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "daily, inside", start: pattern(hour: 9), end: pattern(hour: 17),
            at: LocalTime(year: 2025, month: 6, day: 4, hour: 12),
            expectedStart: LocalTime(year: 2025, month: 6, day: 4, hour: 9),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 4, hour: 17)),
        Case(
            name: "daily, after the end: tomorrow's", start: pattern(hour: 9), end: pattern(hour: 17),
            at: LocalTime(year: 2025, month: 6, day: 4, hour: 17),
            expectedStart: LocalTime(year: 2025, month: 6, day: 5, hour: 9),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 5, hour: 17)),
        Case(
            name: "midnight-spanning, after midnight", start: pattern(hour: 22), end: pattern(hour: 7),
            at: LocalTime(year: 2025, month: 6, day: 5, hour: 2),
            expectedStart: LocalTime(year: 2025, month: 6, day: 4, hour: 22),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 5, hour: 7)),
        Case(
            name: "midnight-spanning, evening", start: pattern(hour: 22, minute: 30), end: pattern(hour: 7),
            at: LocalTime(year: 2025, month: 6, day: 4, hour: 21),
            expectedStart: LocalTime(year: 2025, month: 6, day: 4, hour: 22, minute: 30),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 5, hour: 7)),
        Case(
            name: "weekday: Mondays only, asked on a Wednesday", start: pattern(weekday: 2, hour: 9),
            end: pattern(weekday: 2, hour: 17), at: LocalTime(year: 2025, month: 6, day: 4, hour: 10),
            expectedStart: LocalTime(year: 2025, month: 6, day: 9, hour: 9),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 9, hour: 17)),
        Case(
            name: "weekend across the week's rollover", start: pattern(weekday: 6, hour: 17),
            end: pattern(weekday: 2, hour: 8), at: LocalTime(year: 2025, month: 6, day: 8, hour: 23),
            expectedStart: LocalTime(year: 2025, month: 6, day: 6, hour: 17),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 9, hour: 8)),
        Case(
            name: "Saturday night into Sunday", start: pattern(weekday: 7, hour: 22), end: pattern(hour: 2),
            at: LocalTime(year: 2025, month: 6, day: 8, hour: 1),
            expectedStart: LocalTime(year: 2025, month: 6, day: 7, hour: 22),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 8, hour: 2)),
        Case(
            name: "hourly: minute alone", start: pattern(minute: 0), end: pattern(minute: 30),
            at: LocalTime(year: 2025, month: 6, day: 4, hour: 10, minute: 45),
            expectedStart: LocalTime(year: 2025, month: 6, day: 4, hour: 11),
            expectedEnd: LocalTime(year: 2025, month: 6, day: 4, hour: 11, minute: 30)),
        Case(
            name: "whole day: same start and end", start: pattern(hour: 0), end: pattern(hour: 0),
            at: LocalTime(year: 2025, month: 12, day: 31, hour: 23),
            expectedStart: LocalTime(year: 2025, month: 12, day: 31),
            expectedEnd: LocalTime(year: 2026, month: 1, day: 1)),
        Case(
            name: "leap day", start: CalendarPattern(month: 2, day: 29, hour: 8), end: pattern(hour: 20),
            at: LocalTime(year: 2025, month: 3, day: 1),
            expectedStart: LocalTime(year: 2028, month: 2, day: 29, hour: 8),
            expectedEnd: LocalTime(year: 2028, month: 2, day: 29, hour: 20)),
    ]

    @Test("the interval in force or next", arguments: cases)
    func intervalInForceOrNext(_ testCase: Case) throws {
        let schedule = ActivitySchedule(intervalStart: testCase.start, intervalEnd: testCase.end, repeats: true)
        let instant = ZoneRules(timeZone: utc).firstInstant(atOrAfter: testCase.at)
        let interval = try #require(schedule.currentOrNextInterval(at: instant, in: utc))
        #expect(interval.localStart == testCase.expectedStart)
        #expect(interval.localEnd == testCase.expectedEnd)
    }

    @Test func weekdaysFollowFoundationsGregorianCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        for offset in stride(from: -40_000, through: 40_000, by: 997) {
            let day = Int64(offset)
            let date = Date(timeIntervalSince1970: Double(day * 86_400))
            let fields = LocalTime(secondsSince1970: day * 86_400).fields
            let expected = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            #expect(fields.year == expected.year && fields.month == expected.month && fields.day == expected.day)
            #expect(fields.weekday == expected.weekday)
        }
    }

    @Test func springForwardGapMapsToTheEndOfTheGap() {
        // 2025-03-09 in New York: 02:00 EST becomes 03:00 EDT at 07:00Z; 02:30 never shows on a clock.
        let instant = wall(2025, 3, 9, 2, 30, in: newYork)
        #expect(instant == WallClockInstant(secondsSince1970: 1_741_503_600))
        #expect(ZoneRules(timeZone: newYork).localTime(at: instant) == LocalTime(year: 2025, month: 3, day: 9, hour: 3))
    }

    @Test func fallBackRepeatedTimeMapsToItsFirstOccurrence() {
        // 2025-11-02 in New York: 01:30 EDT (05:30Z) and again 01:30 EST (06:30Z).
        #expect(wall(2025, 11, 2, 1, 30, in: newYork) == WallClockInstant(secondsSince1970: 1_762_061_400))
    }

    @Test func intervalThroughFallBackLastsItsRealLength() throws {
        let schedule = ActivitySchedule(intervalStart: pattern(hour: 0), intervalEnd: pattern(hour: 3), repeats: true)
        let interval = try #require(
            schedule.currentOrNextInterval(at: wall(2025, 11, 2, 0, 30, in: newYork), in: newYork))
        #expect(interval.localLength == .seconds(3 * 3_600))
        #expect(interval.end - interval.start == .seconds(4 * 3_600))
    }
}
