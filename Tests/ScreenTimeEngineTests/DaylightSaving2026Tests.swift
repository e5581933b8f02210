import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// The 2026 daylight-saving changes in New York, driven second by second, and a time zone carried by `Now`.
@Suite struct DaylightSaving2026Tests {
    let limit: ActivityEventName = "limit"

    /// Samples `user` every second for `seconds` seconds; returns each callback with the wall-clock second it came at.
    func useEverySecond(_ script: inout EngineScript, forSeconds seconds: Int) -> [(Int64, Action)] {
        var fired: [(Int64, Action)] = []
        for _ in 0..<seconds {
            script.now.monotonic = script.now.monotonic + .seconds(1)
            script.now.wallClock = script.now.wallClock + .seconds(1)
            for action in script.sample(alice, [use("game")]).callbacks {
                fired.append((script.now.wallClock.secondsSince1970, action))
            }
        }
        return fired
    }

    @Test func springForwardStartsTheSkipped0230IntervalAt0300AndCountsRealSeconds() {
        var script = EngineScript(at: wall(2026, 3, 7, 12, in: newYork), in: newYork)
        script.handle(
            .startMonitoring(
                daily(
                    from: pattern(hour: 2, minute: 30), to: pattern(hour: 4),
                    events: [limit: ActivityEvent(threshold: .seconds(1_800))])))
        script.advance(to: wall(2026, 3, 8, 1, in: newYork))
        script.sample(alice, [use("game")])
        // 01:00 EST (06:00Z) to 05:00 EDT (09:00Z): three real hours.
        let fired = useEverySecond(&script, forSeconds: 3 * 3_600)
        #expect(fired.map(\.1) == [
            .intervalDidStart("daily"), .eventDidReachThreshold(limit, activity: "daily", user: alice),
            .intervalDidEnd("daily"),
        ])
        // 02:30 does not exist that day: the interval starts when the clock jumps from 01:59:59 EST to 03:00 EDT
        // (07:00:00Z), reaches 30 minutes of use at 07:30:00Z and ends at 04:00 EDT (08:00:00Z).
        #expect(fired.map(\.0) == [1_772_953_200, 1_772_955_000, 1_772_956_800])
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2026, 3, 9, 2, 30, in: newYork))
    }

    @Test func fallBackStartsAnIntervalInTheRepeatedHourOnceAndCountsEachRealSecondOnce() {
        var script = EngineScript(at: wall(2026, 10, 31, 12, in: newYork), in: newYork)
        script.handle(
            .startMonitoring(
                daily(
                    from: pattern(hour: 1, minute: 30), to: pattern(hour: 1, minute: 45),
                    events: [limit: ActivityEvent(threshold: .seconds(600))])))
        script.advance(to: wall(2026, 11, 1, 0, in: newYork))
        script.sample(alice, [use("game")])
        // 00:00 EDT (04:00Z) to 03:00 EST (08:00Z): four real hours, 01:00–02:00 shown twice.
        let fired = useEverySecond(&script, forSeconds: 4 * 3_600)
        #expect(fired.map(\.1) == [
            .intervalDidStart("daily"), .eventDidReachThreshold(limit, activity: "daily", user: alice),
            .intervalDidEnd("daily"),
        ])
        // 01:30 EDT (05:30Z) to 01:45 EDT (05:45Z); the second 01:30 (EST, 06:30Z) starts nothing.
        #expect(fired.map(\.0) == [1_793_511_000, 1_793_511_600, 1_793_511_900])
        #expect(script.engine.nextInterval(of: "daily")?.start == WallClockInstant(secondsSince1970: 1_793_601_000))
    }

    @Test func aTimeZoneCarriedByNowMovesTheSchedulesLikeAnAnnouncedChange() {
        // 10:00 in Berlin (08:00Z) is 04:00 in New York.
        var script = EngineScript(at: wall(2026, 6, 4, 10, in: berlin), in: berlin)
        #expect(
            script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17)))).callbacks == [
                .intervalDidStart("daily")
            ])
        script.now.timeZone = berlin
        #expect(script.handle(.wakeUp).isEmpty)
        script.now.timeZone = newYork
        #expect(script.handle(.wakeUp).callbacks.isEmpty)
        #expect(script.engine.timeZone == newYork)
        #expect(script.engine.currentInterval(of: "daily")?.end == wall(2026, 6, 4, 17, in: newYork))
        #expect(script.advance(to: wall(2026, 6, 4, 17, in: newYork)).callbacks == [.intervalDidEnd("daily")])
    }
}

extension DaylightSaving2026Tests {
    @Test func aZoneEqualByIdentifierChangesNothingAndAnotherInstanceOfANewZoneMovesTheSchedules() {
        var script = EngineScript(at: wall(2026, 6, 4, 10, in: berlin), in: berlin)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        script.now.timeZone = TimeZone(identifier: "Europe/Berlin")
        #expect(script.handle(.wakeUp).isEmpty)
        script.now.timeZone = TimeZone(identifier: "America/New_York")
        #expect(script.handle(.wakeUp).contains(.persistSnapshot))
        #expect(script.engine.timeZone.identifier == "America/New_York")
        #expect(script.handle(.wakeUp).isEmpty)
    }
}
