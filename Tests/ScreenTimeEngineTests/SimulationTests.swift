import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Four weeks of a household's use, across a daylight-saving change, through the engine.
@Suite struct SimulationTests {
    let carol = UserID(1003)
    let game = use("game")
    let editor = use("editor", category: "productivity")

    var activities: [ActivityRegistration] {
        [
            daily(
                from: pattern(hour: 0), to: pattern(hour: 0), warning: .seconds(300),
                events: [
                    "games": ActivityEvent(categories: [category("games")], threshold: .seconds(3_600)),
                    "all": ActivityEvent(threshold: .seconds(3 * 3_600)),
                ]),
            daily("bedtime", from: pattern(hour: 21), to: pattern(hour: 7)),
            daily("monday", from: pattern(weekday: 2, hour: 8), to: pattern(hour: 15)),
        ]
    }

    var routine: [Simulation.RoutineStep] {
        [
            // Alice plays from 16:00 to 17:30, then locks the screen.
            .init(user: alice, hour: 16, minute: 0, uses: [game]),
            .init(user: alice, hour: 17, minute: 30, uses: [], presence: .locked),
            // Bob works 09:00–12:00, is away, plays 20:00–22:30.
            .init(user: bob, hour: 9, minute: 0, uses: [editor]),
            .init(user: bob, hour: 12, minute: 0, uses: [editor], presence: .idle),
            .init(user: bob, hour: 20, minute: 0, uses: [game]),
            .init(user: bob, hour: 22, minute: 30, uses: [], presence: .locked),
            // Carol plays half an hour after lunch.
            .init(user: carol, hour: 13, minute: 0, uses: [game]),
            .init(user: carol, hour: 13, minute: 30, uses: [], presence: .background),
        ]
    }

    func localTimes(days: ClosedRange<Int>, _ hour: Int, _ minute: Int = 0) -> [LocalTime] {
        days.map { LocalTime(year: 2025, month: 3, day: $0, hour: hour, minute: minute) }
    }

    @Test func aMonthOfUseFiresEveryCallbackAtItsLocalTime() {
        let clock = ContinuousClock()
        let started = clock.now
        var simulation = Simulation(
            zone: newYork, routine: routine, activities: activities, at: wall(2025, 2, 28, 23, in: newYork))
        simulation.run(days: 1...28, month: 3, year: 2025)
        let elapsed = clock.now - started

        // Monitoring began at 23:00 on 28 February, inside both the daily and the bedtime interval; the run ends
        // after the last sample, 22:30 on 28 March. Daily intervals start at local midnight, 9 March (23 hours
        // long) included.
        let start = LocalTime(year: 2025, month: 2, day: 28, hour: 23)
        #expect(simulation.localTimes(of: .intervalDidStart("daily")) == [start] + localTimes(days: 1...28, 0))
        #expect(
            simulation.localTimes(of: .intervalWillEndWarning("daily"))
                == [start + 55 * 60] + localTimes(days: 1...27, 23, 55))
        #expect(simulation.localTimes(of: .intervalDidEnd("bedtime")) == localTimes(days: 1...28, 7))
        #expect(simulation.localTimes(of: .intervalDidStart("bedtime")) == [start] + localTimes(days: 1...28, 21))
        #expect(
            simulation.localTimes(of: .intervalDidStart("monday"))
                == [3, 10, 17, 24].map {
                    LocalTime(year: 2025, month: 3, day: $0, hour: 8)
                })

        // Alice's games reach an hour at 17:00 each day, warned at 16:55; Bob's at 21:00; Carol never.
        #expect(
            simulation.localTimes(of: .eventDidReachThreshold("games", activity: "daily", user: alice))
                == localTimes(days: 1...28, 17))
        #expect(
            simulation.localTimes(of: .eventWillReachThresholdWarning("games", activity: "daily", user: alice))
                == localTimes(days: 1...28, 16, 55))
        #expect(
            simulation.localTimes(of: .eventDidReachThreshold("games", activity: "daily", user: bob))
                == localTimes(days: 1...28, 21))
        // Bob's three hours of all activity are reached at noon each day.
        #expect(
            simulation.localTimes(of: .eventDidReachThreshold("all", activity: "daily", user: bob))
                == localTimes(days: 1...28, 12))
        #expect(
            !simulation.log.contains {
                if case .eventDidReachThreshold(_, _, carol) = $0.action { true } else { false }
            })

        // Each threshold fires once per interval: 28 days × (Alice games, Bob games, Bob all).
        #expect(
            simulation.log.filter { if case .eventDidReachThreshold = $0.action { true } else { false } }.count
                == 3 * 28)
        print("simulation: 28 days, 3 users, \(simulation.handledEvents) events handled in \(elapsed)")
        #expect(elapsed < .seconds(5))
    }
}
