import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Daylight-saving changes, time-zone changes, clock steps and suspend: no interval twice, no use twice, no use
/// while suspended.
@Suite struct ClockTests {
    let all: ActivityEventName = "all"
    var allActivity: ActivityEvent { ActivityEvent(threshold: .seconds(86_400)) }

    @Test func springForwardStartsAnIntervalAtASkippedTimeWhenTheClockJumpsPastIt() {
        var script = EngineScript(at: wall(2025, 3, 8, 12, in: newYork), in: newYork)
        script.handle(.startMonitoring(daily(from: pattern(hour: 2, minute: 30), to: pattern(hour: 4))))
        // 01:59:59 EST is 06:59:59Z; the next second is 03:00:00 EDT.
        #expect(script.advance(to: WallClockInstant(secondsSince1970: 1_741_503_599)).callbacks.isEmpty)
        #expect(script.advance(.seconds(1)).callbacks == [.intervalDidStart("daily")])
        #expect(script.advance(to: wall(2025, 3, 9, 4, in: newYork)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 3, 10, 2, 30, in: newYork))
    }

    @Test func fallBackStartsTheRepeatedHourOnceAndCountsItsUseOnce() {
        var script = EngineScript(at: wall(2025, 11, 1, 12, in: newYork), in: newYork)
        script.handle(
            .startMonitoring(
                daily(from: pattern(hour: 1, minute: 30), to: pattern(hour: 3), events: [all: allActivity])))
        script.advance(to: wall(2025, 11, 2, 0, in: newYork))
        script.sample(alice, [use("game")])
        var callbacks: [Action] = []
        // Through both 01:00–02:00 hours and past 03:00 EST, one sample a second.
        callbacks += script.use(alice, [use("game")], forSeconds: 4 * 3_600)
        #expect(callbacks == [.intervalDidStart("daily"), .intervalDidEnd("daily")])
        // 01:30 EDT (05:30Z) to 03:00 EST (08:00Z): two and a half real hours.
        let log = script.log.callbacks
        #expect(log.count == 2)
        #expect(script.engine.currentInterval(of: "daily") == nil)
    }

    @Test func fallBackUseCountsRealTime() {
        var script = EngineScript(at: wall(2025, 11, 2, 0, 30, in: newYork), in: newYork)
        script.handle(
            .startMonitoring(
                daily(from: pattern(hour: 0), to: pattern(hour: 23, minute: 59), events: [all: allActivity])))
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 3 * 3_600)
        // 00:30 EDT + 3 h = 02:30 EST: the clock showed 2 h, 3 h were used, once.
        #expect(script.used(all) == .seconds(3 * 3_600))
        #expect(ZoneRules(timeZone: newYork).localTime(at: script.now.wallClock).fields.hour == 2)
    }

    @Test func movingWestKeepsTheIntervalAndEndsItAtTheLocalEndThere() {
        // 10:00 in Berlin (08:00Z) is 04:00 in New York.
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: berlin), in: berlin)
        #expect(
            script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17)))).callbacks == [
                .intervalDidStart("daily")
            ])
        #expect(script.handle(.timeZoneChanged(newYork)).callbacks.isEmpty)
        #expect(script.engine.currentInterval(of: "daily")?.end == wall(2025, 6, 4, 17, in: newYork))
        #expect(script.advance(to: wall(2025, 6, 4, 9, in: newYork)).callbacks.isEmpty)
        #expect(script.advance(to: wall(2025, 6, 4, 17, in: newYork)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 6, 5, 9, in: newYork))
    }

    @Test func movingEastPastTheEndEndsTheInterval() {
        // 16:00 in New York is 22:00 in Berlin.
        var script = EngineScript(at: wall(2025, 6, 4, 16, in: newYork), in: newYork)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        #expect(script.handle(.timeZoneChanged(berlin)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 6, 5, 9, in: berlin))
    }

    @Test func movingWestBetweenIntervalsDoesNotRepeatToday() {
        // 18:00 in Berlin, after today's interval; New York shows 12:00, inside its own 09–17.
        var script = EngineScript(at: wall(2025, 6, 4, 18, in: berlin), in: berlin)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        #expect(script.handle(.timeZoneChanged(newYork)).callbacks.isEmpty)
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 6, 5, 9, in: newYork))
    }

    @Test func settingTheClockBackNeitherRestartsTheIntervalNorCountsUseTwice() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(
            .startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17), events: [all: allActivity])))
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 1_800)
        #expect(script.setWallClock(to: wall(2025, 6, 4, 8, 30, in: utc)).callbacks.isEmpty)
        script.sample(alice, [use("game")])
        let callbacks = script.use(alice, [use("game")], forSeconds: 3_600)
        #expect(callbacks.isEmpty)
        #expect(script.used(all) == .seconds(5_400))
        #expect(script.advance(to: wall(2025, 6, 4, 17, in: utc)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.log.callbacks.filter { $0 == .intervalDidStart("daily") }.count == 1)
    }

    @Test func settingTheClockBackAfterTheEndDoesNotRestartTheDay() {
        var script = EngineScript(at: wall(2025, 6, 4, 16, in: utc), in: utc)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        #expect(script.advance(to: wall(2025, 6, 4, 17, 30, in: utc)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.setWallClock(to: wall(2025, 6, 4, 12, in: utc)).callbacks.isEmpty)
        #expect(script.advance(to: wall(2025, 6, 4, 16, 59, in: utc)).callbacks.isEmpty)
        #expect(script.advance(to: wall(2025, 6, 5, 9, in: utc)).callbacks == [.intervalDidStart("daily")])
    }

    @Test func settingTheClockForwardEndsAndStartsWhatItJumpsTo() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        #expect(script.setWallClock(to: wall(2025, 6, 4, 18, in: utc)).callbacks == [.intervalDidEnd("daily")])
        // Two days ahead, inside an interval: the skipped day has no callbacks.
        #expect(script.setWallClock(to: wall(2025, 6, 6, 10, in: utc)).callbacks == [.intervalDidStart("daily")])
    }

    @Test func timeSpentSuspendedCountsNothing() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(
            .startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17), events: [all: allActivity])))
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 600)
        #expect(script.suspend(for: .seconds(2 * 3_600)).callbacks.isEmpty)
        // The first sample after resume only starts the hold again.
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 600)
        #expect(script.used(all) == .seconds(1_200))
    }

    @Test func aSuspendedMonotonicClockCountsNothingEvenUnannounced() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(
            .startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17), events: [all: allActivity])))
        script.sample(alice, [use("game")])
        script.now.wallClock = script.now.wallClock + .seconds(3_600)
        script.now.monotonic = script.now.monotonic + .seconds(1)
        script.sample(alice, [use("game")])
        #expect(script.used(all) == .seconds(1))
    }

    @Test func resumingAfterTheEndEndsTheIntervalAndSkipsThoseSlept() {
        var script = EngineScript(at: wall(2025, 6, 4, 16, in: utc), in: utc)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17))))
        #expect(script.suspend(for: .seconds(2 * 3_600)).callbacks == [.intervalDidEnd("daily")])
        // Asleep from Thursday 18:00 to Saturday 20:00: Friday's interval is skipped.
        script.advance(to: wall(2025, 6, 5, 18, in: utc))
        #expect(script.suspend(for: .seconds(50 * 3_600)).callbacks.isEmpty)
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 6, 8, 9, in: utc))
    }

    @Test func useSpanningAnIntervalsEndIsSplitAtTheBoundary() {
        var script = EngineScript(at: wall(2025, 6, 4, 23, 59, 59, in: utc), in: utc)
        script.handle(
            .startMonitoring(daily(from: pattern(hour: 0), to: pattern(hour: 0), events: [all: allActivity])))
        script.advance(.milliseconds(500))
        script.sample(alice, [use("game")])
        let callbacks = script.advance(
            .seconds(1),
            then: .sample(
                UsageSample(
                    user: alice, session: SessionID("\(alice)-1"), presence: .active, applicationsInUse: [use("game")]))
        )
        #expect(callbacks.callbacks == [.intervalDidEnd("daily"), .intervalDidStart("daily")])
        #expect(script.used(all) == .milliseconds(500))
    }
}
