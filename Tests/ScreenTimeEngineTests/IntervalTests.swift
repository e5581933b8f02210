import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Interval callbacks: starts, ends and warnings at the right wall-clock instants, exactly once.
@Suite struct IntervalTests {
    let nineToFive = daily(from: pattern(hour: 9), to: pattern(hour: 17), warning: .seconds(600))

    @Test func aDayOfCallbacksComeAtTheirInstantsWithWakeUpsRequestedForEach() {
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        let started = script.handle(.startMonitoring(nineToFive))
        #expect(started.callbacks.isEmpty)
        #expect(started.contains(.scheduleWakeUp(script.now.monotonic + .seconds(50 * 60))))
        #expect(started.contains(.persistSnapshot))

        #expect(script.advance(to: wall(2025, 6, 4, 8, 49, 59, in: utc)).callbacks == [])
        #expect(script.advance(.seconds(1)).callbacks == [.intervalWillStartWarning("daily")])
        #expect(script.advance(to: wall(2025, 6, 4, 9, in: utc)).callbacks == [.intervalDidStart("daily")])
        #expect(script.advance(to: wall(2025, 6, 4, 16, 50, in: utc)).callbacks == [.intervalWillEndWarning("daily")])
        let ended = script.advance(to: wall(2025, 6, 4, 17, in: utc))
        #expect(ended.callbacks == [.intervalDidEnd("daily")])
        // Next: tomorrow's start warning at 08:50, 15 h 50 min away.
        #expect(ended.contains(.scheduleWakeUp(script.now.monotonic + .seconds(15 * 3_600 + 50 * 60))))
    }

    @Test func oneLateWakeUpRunsEveryBoundaryInOrder() {
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        script.handle(.startMonitoring(nineToFive))
        let day: [Action] = [
            .intervalWillStartWarning("daily"), .intervalDidStart("daily"), .intervalWillEndWarning("daily"),
            .intervalDidEnd("daily"),
        ]
        #expect(script.advance(.seconds(2 * 86_400)).callbacks == day + day)
    }

    @Test func monitoringStartedInsideAnIntervalStartsItAtOnce() {
        var script = EngineScript(at: wall(2025, 6, 4, 12, in: utc), in: utc)
        #expect(script.handle(.startMonitoring(nineToFive)).callbacks == [.intervalDidStart("daily")])
        #expect(script.engine.currentInterval(of: "daily")?.start == wall(2025, 6, 4, 9, in: utc))
        #expect(script.engine.nextInterval(of: "daily")?.start == wall(2025, 6, 5, 9, in: utc))

        var late = EngineScript(at: wall(2025, 6, 4, 16, 55, in: utc), in: utc)
        #expect(
            late.handle(.startMonitoring(nineToFive)).callbacks == [
                .intervalDidStart("daily"), .intervalWillEndWarning("daily"),
            ])
    }

    @Test func stoppingMidIntervalEndsIt() {
        var script = EngineScript(at: wall(2025, 6, 4, 12, in: utc), in: utc)
        script.handle(.startMonitoring(nineToFive))
        #expect(script.handle(.stopMonitoring(["daily"])).callbacks == [.intervalDidEnd("daily")])
        #expect(script.engine.activities.isEmpty)
        #expect(script.advance(.seconds(86_400)).callbacks.isEmpty)

        var outside = EngineScript(at: wall(2025, 6, 4, 18, in: utc), in: utc)
        outside.handle(.startMonitoring(nineToFive))
        #expect(outside.handle(.stopMonitoring(["daily"])).callbacks.isEmpty)
    }

    @Test func replacingAnActivityEndsTheOldIntervalAndStartsTheNew() {
        var script = EngineScript(at: wall(2025, 6, 4, 12, in: utc), in: utc)
        script.handle(.startMonitoring(nineToFive))
        let replaced = script.handle(.startMonitoring(daily(from: pattern(hour: 10), to: pattern(hour: 20))))
        #expect(replaced.callbacks == [.intervalDidEnd("daily"), .intervalDidStart("daily")])
        #expect(script.engine.currentInterval(of: "daily")?.end == wall(2025, 6, 4, 20, in: utc))
    }

    @Test func aScheduleThatDoesNotRepeatStopsAfterItsFirstInterval() {
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        script.handle(.startMonitoring(daily(from: pattern(hour: 9), to: pattern(hour: 17), repeats: false)))
        #expect(script.advance(to: wall(2025, 6, 4, 9, in: utc)).callbacks == [.intervalDidStart("daily")])
        #expect(script.engine.nextInterval(of: "daily") == nil)
        #expect(script.advance(to: wall(2025, 6, 4, 17, in: utc)).callbacks == [.intervalDidEnd("daily")])
        #expect(script.engine.activities.isEmpty)
        #expect(script.advance(.seconds(3 * 86_400)).callbacks.isEmpty)
    }

    @Test func aMidnightSpanningIntervalEndsTheNextMorning() {
        var script = EngineScript(at: wall(2025, 6, 4, 21, in: utc), in: utc)
        script.handle(.startMonitoring(daily("bedtime", from: pattern(hour: 22), to: pattern(hour: 7))))
        #expect(script.advance(to: wall(2025, 6, 4, 22, in: utc)).callbacks == [.intervalDidStart("bedtime")])
        #expect(script.advance(to: wall(2025, 6, 5, 0, in: utc)).callbacks.isEmpty)
        #expect(script.advance(to: wall(2025, 6, 5, 6, 59, 59, in: utc)).callbacks.isEmpty)
        #expect(script.advance(to: wall(2025, 6, 5, 7, in: utc)).callbacks == [.intervalDidEnd("bedtime")])
        #expect(script.engine.nextInterval(of: "bedtime")?.start == wall(2025, 6, 5, 22, in: utc))
    }

    @Test func aWeekdayScheduleRunsOnItsDayOnly() {
        // Wednesday 2025-06-04; Mondays are weekday 2.
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        script.handle(.startMonitoring(daily("monday", from: pattern(weekday: 2, hour: 9), to: pattern(hour: 17))))
        var starts: [WallClockInstant] = []
        for _ in 0..<(14 * 24) {
            if script.advance(.seconds(3_600)).callbacks.contains(.intervalDidStart("monday")) {
                starts.append(script.now.wallClock)
            }
        }
        #expect(starts == [wall(2025, 6, 9, 9, in: utc), wall(2025, 6, 16, 9, in: utc)])
    }

    @Test func warningsNeverComeBeforeTheIntervalOrTheWaitTheyBelongTo() {
        // A 20-minute interval with a 30-minute warning: the end warning is clamped to the start.
        let short = daily(from: pattern(hour: 9), to: pattern(hour: 9, minute: 20), warning: .seconds(1_800))
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        script.handle(.startMonitoring(short))
        #expect(script.advance(to: wall(2025, 6, 4, 8, 30, in: utc)).callbacks == [.intervalWillStartWarning("daily")])
        #expect(
            script.advance(to: wall(2025, 6, 4, 9, in: utc)).callbacks == [
                .intervalDidStart("daily"), .intervalWillEndWarning("daily"),
            ])
        #expect(script.advance(to: wall(2025, 6, 4, 9, 20, in: utc)).callbacks == [.intervalDidEnd("daily")])

        // Monitoring begun inside the warning time warns at once.
        var inside = EngineScript(at: wall(2025, 6, 4, 8, 45, in: utc), in: utc)
        #expect(inside.handle(.startMonitoring(short)).callbacks == [.intervalWillStartWarning("daily")])

        // A warning longer than the gap between intervals is clamped to the previous interval's end.
        let backToBack = daily(from: pattern(hour: 9), to: pattern(hour: 8, minute: 30), warning: .seconds(3_600))
        var tight = EngineScript(at: wall(2025, 6, 4, 8, 40, in: utc), in: utc)
        #expect(tight.handle(.startMonitoring(backToBack)).callbacks == [.intervalWillStartWarning("daily")])
        #expect(tight.advance(to: wall(2025, 6, 4, 9, in: utc)).callbacks == [.intervalDidStart("daily")])
        #expect(tight.advance(to: wall(2025, 6, 5, 7, 30, in: utc)).callbacks == [.intervalWillEndWarning("daily")])
        #expect(
            tight.advance(to: wall(2025, 6, 5, 8, 30, in: utc)).callbacks == [
                .intervalDidEnd("daily"), .intervalWillStartWarning("daily"),
            ])
    }

    @Test func backToBackIntervalsEndBeforeTheNextStarts() {
        var script = EngineScript(at: wall(2025, 6, 4, 12, in: utc), in: utc)
        script.handle(.startMonitoring(daily(from: pattern(hour: 0), to: pattern(hour: 0))))
        #expect(
            script.advance(to: wall(2025, 6, 5, 0, in: utc)).callbacks == [
                .intervalDidEnd("daily"), .intervalDidStart("daily"),
            ])
    }

    @Test func severalActivitiesRunSideBySideInNameOrder() {
        var script = EngineScript(at: wall(2025, 6, 4, 8, in: utc), in: utc)
        script.handle(.startMonitoring(daily("work", from: pattern(hour: 9), to: pattern(hour: 17))))
        script.handle(.startMonitoring(daily("school", from: pattern(hour: 9), to: pattern(hour: 15))))
        #expect(script.engine.activities == ["school", "work"])
        #expect(
            script.advance(to: wall(2025, 6, 4, 9, in: utc)).callbacks == [
                .intervalDidStart("school"), .intervalDidStart("work"),
            ])
        #expect(script.advance(to: wall(2025, 6, 4, 15, in: utc)).callbacks == [.intervalDidEnd("school")])
        #expect(script.advance(to: wall(2025, 6, 4, 17, in: utc)).callbacks == [.intervalDidEnd("work")])
    }
}
