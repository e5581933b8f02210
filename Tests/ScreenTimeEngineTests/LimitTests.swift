import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Apple's limits, as configurable defaults, refused with a typed error that says why.
@Suite struct LimitTests {
    func refusal(_ registration: ActivityRegistration, configuration: EngineConfiguration = .appleDefaults)
        -> MonitoringError?
    {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc, configuration: configuration)
        let actions = script.handle(.startMonitoring(registration))
        for case .monitoringRefused(let name, let error) in actions {
            #expect(name == registration.name)
            #expect(script.engine.activities.isEmpty)
            return error
        }
        return nil
    }

    @Test func anIntervalShorterThanFifteenMinutesIsRefused() {
        let error = refusal(daily(from: pattern(hour: 9), to: pattern(hour: 9, minute: 10)))
        #expect(error == .intervalTooShort(length: .seconds(600), minimum: .seconds(900)))
        #expect(error?.description == "the schedule's interval is 10m, shorter than the minimum of 15m")
        #expect(refusal(daily(from: pattern(hour: 9), to: pattern(hour: 9, minute: 15))) == nil)
    }

    @Test func anIntervalLongerThanAWeekIsRefused() {
        let fortnight = daily(from: CalendarPattern(day: 1, hour: 0), to: CalendarPattern(day: 15, hour: 0))
        #expect(refusal(fortnight) == .intervalTooLong(length: .seconds(14 * 86_400), maximum: .seconds(7 * 86_400)))
        #expect(refusal(daily(from: pattern(weekday: 2, hour: 9), to: pattern(weekday: 2, hour: 9))) == nil)
    }

    @Test func theTwentyFirstActivityIsRefusedUnlessTheLimitIsRaised() {
        for limit in [20, 25] {
            var configuration = EngineConfiguration.appleDefaults
            configuration.maximumActivities = limit
            var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc, configuration: configuration)
            for index in 0..<20 { script.handle(.startMonitoring(daily(DeviceActivityName("a\(index)")))) }
            let actions = script.handle(.startMonitoring(daily("one.more")))
            if limit == 20 {
                #expect(actions == [.monitoringRefused("one.more", .excessiveActivities(limit: 20))])
                // Replacing an existing activity is no new activity.
                #expect(
                    !script.handle(.startMonitoring(daily("a3"))).contains {
                        if case .monitoringRefused = $0 { true } else { false }
                    })
            } else {
                #expect(script.engine.activities.count == 21)
            }
        }
    }

    @Test func limitsCanBeLifted() {
        #expect(
            refusal(daily(from: pattern(hour: 9), to: pattern(hour: 9, minute: 1)), configuration: .unlimited) == nil)
    }

    @Test func invalidComponentsAndThresholdsAreRefusedWithTheReason() {
        #expect(
            refusal(daily(from: pattern(hour: 25)))
                == .invalidDateComponents(reason: "intervalStart: hour 25 is outside 0...23"))
        #expect(
            refusal(daily(to: CalendarPattern()))
                == .invalidDateComponents(reason: "intervalEnd: no date or time field is set"))
        #expect(
            refusal(daily(events: ["zero": ActivityEvent(threshold: .zero)]))
                == .invalidDateComponents(reason: "the threshold of event zero must be positive"))
        #expect(
            refusal(daily(from: CalendarPattern(year: 2020, month: 1, day: 1)))
                == .invalidDateComponents(reason: "the schedule has no interval after 2025-06-04T10:00:00"))
        #expect(
            refusal(daily(warning: .seconds(-1))) == .invalidDateComponents(reason: "warningTime must not be negative"))
        // Beyond what any interval holds, and beyond 64-bit nanoseconds: refused, never a crash.
        let endless = Duration(secondsComponent: .max, attosecondsComponent: 0)
        #expect(
            refusal(daily(warning: endless))
                == .invalidDateComponents(reason: "warningTime must be at most 366 days"))
        #expect(
            refusal(daily(events: ["endless": ActivityEvent(threshold: endless)]))
                == .invalidDateComponents(reason: "the threshold of event endless must be at most 366 days"))
        #expect(refusal(daily(events: ["year": ActivityEvent(threshold: .seconds(366 * 86_400))])) == nil)
    }

    @Test func validationWithoutMonitoringChangesNothing() {
        let engine = ActivityEngine(timeZone: utc)
        let now = Now(monotonic: MonotonicInstant(nanoseconds: 0), wallClock: wall(2025, 6, 4, 10, in: utc))
        #expect(throws: MonitoringError.intervalTooShort(length: .seconds(60), minimum: .seconds(900))) {
            try engine.validate(daily(from: pattern(hour: 9), to: pattern(hour: 9, minute: 1)), at: now)
        }
        #expect(engine.activities.isEmpty)
    }
}
