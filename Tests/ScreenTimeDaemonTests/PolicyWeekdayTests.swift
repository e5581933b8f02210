import Foundation
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// Limits and downtimes that differ by weekday: read from the policy, then planned as one engine activity per day.
@Suite struct PolicyWeekdayTests {
    typealias Day = Policy.Weekday

    static func problems(_ text: String) -> [String] {
        guard case .failure(let error) = Policy.diagnose(text, file: "p.toml").result else { return [] }
        return error.problems.map(\.description)
    }

    @Test func theMostSpecificDayWins() throws {
        let policy = try Policy.parse(
            """
            [[limit]]
            name = "games"
            daily = { weekdays = "1h", weekend = "3h", fri = "2h" }
            warning = "5m"
            """)
        let limit = policy.limits[0]
        #expect(
            limit.dailyByWeekday == [
                .monday: .seconds(3600), .tuesday: .seconds(3600), .wednesday: .seconds(3600),
                .thursday: .seconds(3600), .friday: .seconds(7200), .saturday: .seconds(10800),
                .sunday: .seconds(10800),
            ])
        #expect(limit.daily == .seconds(10800))
    }

    @Test func aLimitForEachDayPasses() throws {
        let policy = try Policy.parse(
            """
            [[limit]]
            name = "games"
            daily.mon = "1h"
            daily.tue = "1h10m"
            daily.wed = "1h20m"
            daily.thu = "1h30m"
            daily.fri = "2h"
            daily.sat = "3h"
            daily.sun = "2h30m"
            """)
        #expect(policy.limits[0].dailyByWeekday?.count == 7)
        #expect(policy.limits[0].dailyByWeekday?[.sunday] == .seconds(9000))
        // The same every day is a plain daily limit.
        let same = try Policy.parse("[[limit]]\nname = \"a\"\ndaily = { weekdays = \"1h\", weekend = \"1h\" }\n")
        #expect(same.limits[0].dailyByWeekday == nil && same.limits[0].daily == .seconds(3600))
    }

    @Test func eachDaysValueIsChecked() {
        #expect(
            Self.problems(
                """
                [[limit]]
                name = "games"
                daily = { weekdays = "0s", satt = "1h", sun = "25h" }
                warning = "2h"
                [[limit]]
                name = "video"
                daily = {}
                [[downtime]]
                name = "night"
                days = ["mon", "weekdayz"]
                start = "21:00"
                end = "07:00"
                """) == [
                    "p.toml:3:22: `daily.weekdays` must be longer than 0s",
                    "p.toml:3:28: unknown key `satt` in `daily`; did you mean `sat`?",
                    "p.toml:3:47: `daily.sun` is 25h, more than a day; write at most \"24h\"",
                    "p.toml:7:9: `daily` names no day; write e.g. `daily = { weekdays = …, weekend = … }` or any of mon … sun",
                    "p.toml:10:16: unknown day \"weekdayz\"; did you mean \"weekdays\"?",
                ])
        #expect(
            Self.problems("[[limit]]\nname = \"a\"\ndaily = { mon = \"1h\", tue = \"10m\" }\nwarning = \"10m\"\n") == [
                "p.toml:4:11: `warning` must be shorter than `daily` (10m)"
            ])
    }

    @Test func aLimitLongerThanItsWindowIsAcceptedWithAWarning() throws {
        let diagnosis = Policy.diagnose(
            """
            [[limit]]
            name = "school"
            apps = ["a"]
            daily = { weekdays = "30m", sat = "3h" }
            start = "08:00"
            end = "09:00"
            [[limit]]
            name = "night"
            apps = ["a"]
            daily = "2h"
            start = "23:00"
            end = "01:00"
            """, file: "p.toml")
        #expect(try diagnosis.get().limits.count == 2)
        #expect(
            diagnosis.warnings.map(\.description) == [
                "p.toml:4:35: warning: `daily` (3h) is longer than the window from 08:00 to 09:00 (1h): it is never reached"
            ])
    }

    @Test func downtimesKeepToTheirDaysAndTakePerDayTimes() throws {
        let policy = try Policy.parse(
            """
            [[downtime]]
            name = "school-nights"
            days = ["weekdays", "sun"]
            start = { weekdays = "21:00", fri = "23:00", sun = "20:30" }
            end = "07:00"
            """)
        let spans = try #require(policy.downtimes[0].spansByWeekday)
        let night = Policy.Span(start: Policy.TimeOfDay(hour: 21, minute: 0), end: Policy.TimeOfDay(hour: 7, minute: 0))
        #expect(spans[.monday] == night && spans[.thursday] == night)
        #expect(spans[.friday]?.start == Policy.TimeOfDay(hour: 23, minute: 0))
        #expect(spans[.saturday] == nil)
        #expect(spans[.sunday]?.start == Policy.TimeOfDay(hour: 20, minute: 30))
        #expect(Self.problems(
            """
            [[downtime]]
            name = "x"
            days = ["sun"]
            start = { weekdays = "21:00" }
            end = "07:00"
            [[downtime]]
            name = "y"
            start = { sat = "10:00" }
            end = { sat = "10:00", sun = "11:00" }
            """) == [
                "p.toml:4:9: `start` has no time for sun; add `sun = \"HH:MM\"`",
                "p.toml:8:9: `start` has no time for sun; add `sun = \"HH:MM\"`",
                "p.toml:9:15: `end` equals `start` on sat: the downtime would be empty",
            ])
        let weekend = try Policy.parse("[[downtime]]\nname = \"w\"\ndays = [\"weekend\"]\nstart = \"22:00\"\nend = \"08:00\"\n")
        #expect(weekend.downtimes[0].spansByWeekday?.keys.sorted() == [.saturday, .sunday])
    }

    static let utc = TimeZone(identifier: "UTC")!
    static func now(_ secondsSince1970: Int64) -> Now {
        Now(monotonic: MonotonicInstant(nanoseconds: 1_000_000_000), wallClock: WallClockInstant(secondsSince1970: secondsSince1970))
    }

    @Test func aLimitByWeekdayIsOneActivityPerDayWithThatDaysThreshold() throws {
        let policy = try Policy.parse(
            """
            [[limit]]
            name = "games"
            apps = ["supertuxkart"]
            daily = { weekdays = "1h", sat = "3h" }
            extension = "/usr/libexec/games-monitor"
            [[downtime]]
            name = "bedtime"
            start = { weekdays = "21:00", fri = "23:00" }
            end = "07:00"
            extension = "/usr/libexec/bedtime-monitor"
            """)
        let plan = PolicyPlan(
            policy: policy, appToken: { ApplicationToken(rawValue: $0.rawValue) },
            categoryToken: { ActivityCategoryToken(rawValue: $0.rawValue) })
        #expect(
            plan.registrations.map(\.name.rawValue) == [
                "limit.games", "limit.games.tue", "limit.games.wed", "limit.games.thu", "limit.games.fri",
                "limit.games.sat", "downtime.bedtime.mon", "downtime.bedtime.tue", "downtime.bedtime.wed",
                "downtime.bedtime.thu", "downtime.bedtime.fri",
            ])
        #expect(Set(plan.limits.map(\.store)) == [SettingsStoreName("limit.games")])
        #expect(plan.limits.map(\.daily) == [.seconds(3600), .seconds(3600), .seconds(3600), .seconds(3600), .seconds(3600), .seconds(10800)])
        #expect(plan.limit(for: DeviceActivityName("limit.games.sat"))?.daily == .seconds(10800))
        #expect(plan.limits.map(\.weekday) == [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday])
        let saturday = try #require(plan.registrations.first { $0.name.rawValue == "limit.games.sat" })
        #expect(saturday.schedule.intervalStart == CalendarPattern(weekday: 7, hour: 0, minute: 0, second: 0))
        #expect(saturday.events[PolicyPlan.limitEvent]?.threshold == .seconds(10800))
        #expect(plan.downtimeShields[DeviceActivityName("downtime.bedtime.fri")]?.store == SettingsStoreName("downtime.bedtime.fri"))
        // Each day's activity calls the extension by the limit's or downtime's own name.
        #expect(
            plan.extensions[DeviceActivityName("limit.games.sat")]
                == .init(executable: "/usr/libexec/games-monitor", activity: "limit.games"))
        #expect(
            plan.extensions[DeviceActivityName("downtime.bedtime.fri")]
                == .init(executable: "/usr/libexec/bedtime-monitor", activity: "downtime.bedtime"))

        // The engine runs the day's activity on that day only.
        var engine = ActivityEngine(timeZone: Self.utc)
        let fridayNight = Self.now(1_749_252_600)  // Friday 2025-06-06 23:30 UTC
        for registration in plan.registrations {
            try engine.validate(registration, at: fridayNight)
            let actions = engine.handle(.startMonitoring(registration), at: fridayNight)
            #expect(!actions.contains { if case .monitoringRefused = $0 { true } else { false } })
        }
        let current = plan.registrations.map(\.name).filter { engine.currentInterval(of: $0) != nil }.map(\.rawValue)
        #expect(current == ["limit.games.fri", "downtime.bedtime.fri"])
        let saturdayMidnight = WallClockInstant(secondsSince1970: 1_749_254_400)
        #expect(engine.nextInterval(of: DeviceActivityName("limit.games.sat"))?.start == saturdayMidnight)
        let saturdayMorning = WallClockInstant(secondsSince1970: 1_749_254_400 + 7 * 3600)
        #expect(engine.currentInterval(of: DeviceActivityName("downtime.bedtime.fri"))?.end == saturdayMorning)
    }
}

/// What `screentime status` shows of limits and downtimes by weekday: the day's.
@Suite struct WeekdayStatusTests {
    static let policy = """
        [[limit]]
        name = "games"
        apps = ["supertuxkart"]
        daily = { weekdays = "1h" }
        [[downtime]]
        name = "bedtime"
        start = { weekdays = "21:30", weekend = "22:30" }
        end = "07:00"
        """

    func status(at secondsSince1970: Int64) throws -> [DaemonStatus.Row] {
        var harness = DaemonRuntimeTests.Harness()
        harness.wall = secondsSince1970 * 1_000_000_000
        harness.handle(.restarted(nil))
        try harness.load(Self.policy)
        harness.use(nil, for: 1)
        return DaemonStatus(runtime: harness.runtime, at: harness.now, movedAside: []).rows
    }

    @Test func aWeekdaysDowntimeInProgressIsShownShieldingUntilItsEnd() throws {
        // Tuesday 2026-12-01 22:00 UTC: Tuesday's downtime runs since 21:30, until Wednesday 07:00.
        let rows = try status(at: 1_796_162_400)
        let bedtime = try #require(rows.first { $0.kind == "downtime" })
        #expect(bedtime.shielded)
        #expect(bedtime.nextReset == Date(timeIntervalSince1970: 1_796_162_400 + 9 * 3600))
        #expect(rows.filter { $0.kind == "limit" }.map(\.name) == ["games"])
    }

    @Test func aWeekendDayShowsTheNextDowntimeAndNoLimitOfWeekdays() throws {
        // Saturday 2026-12-05 10:00 UTC: no limit today; the downtime starts at 22:30.
        let rows = try status(at: 1_796_464_800)
        let bedtime = try #require(rows.first { $0.kind == "downtime" })
        #expect(!bedtime.shielded)
        #expect(bedtime.nextReset == Date(timeIntervalSince1970: 1_796_464_800 + 12 * 3600 + 1800))
        #expect(rows.filter { $0.kind == "limit" }.isEmpty)
    }
}

/// The examples of the policy reference parse, and the commented example keeps its weekday forms.
@Suite struct PolicyDocumentationTests {
    static let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/policy.md").standardized.path

    @Test func everyTOMLExampleOfTheReferenceParses() throws {
        let text = try String(contentsOfFile: Self.reference, encoding: .utf8)
        let blocks = text.components(separatedBy: "```toml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count >= 5)
        for (index, block) in blocks.enumerated() {
            #expect(throws: Never.self, "example \(index + 1)") { try Policy.parse(block, file: "example \(index + 1)") }
        }
    }

    @Test func theCommentedExampleLimitsVideoByWeekday() throws {
        let policy = try Policy.parse(Policy.commentedExample, file: "example")
        #expect(policy.limits[1].dailyByWeekday?[.friday] == .seconds(5400))
        #expect(policy.limits[1].dailyByWeekday?[.sunday] == .seconds(7200))
        #expect(policy.downtimes[0].spansByWeekday?[.saturday]?.start == Policy.TimeOfDay(hour: 22, minute: 30))
    }
}
