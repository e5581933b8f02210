import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Event thresholds and warnings: what counts, for whom, and exactly when they fire.
@Suite struct UsageTests {
    let limit: ActivityEventName = "games.limit"
    let game = use("game")
    let editor = use("editor", category: "productivity")

    func gamesActivity(threshold: Duration = .seconds(60), warning: Duration? = .seconds(10), past: Bool = false)
        -> ActivityRegistration
    {
        daily(
            warning: warning,
            events: [
                limit: ActivityEvent(categories: [category("games")], threshold: threshold, includesPastActivity: past)
            ])
    }

    func script(_ registration: ActivityRegistration? = nil) -> EngineScript {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(.startMonitoring(registration ?? gamesActivity()))
        return script
    }

    @Test func withOneSecondSamplesTheThresholdFiresOnTheSampleThatReachesIt() {
        var script = script()
        script.sample(alice, [game])
        let start = script.now.wallClock
        var fired: [(Action, Duration)] = []
        for _ in 0..<120 {
            for action in script.use(alice, [game], forSeconds: 1) {
                fired.append((action, script.now.wallClock - start))
            }
        }
        #expect(
            fired.map(\.0) == [
                .eventWillReachThresholdWarning(limit, activity: "daily", user: alice),
                .eventDidReachThreshold(limit, activity: "daily", user: alice),
            ])
        #expect(fired.map(\.1) == [.seconds(50), .seconds(60)])
        #expect(script.engine.usage(of: limit, in: "daily", for: alice)?.remaining == .zero)
    }

    @Test func aRequestedWakeUpFiresTheThresholdAtTheInstantBetweenSamples() {
        var script = script()
        let first = script.sample(alice, [game])
        let start = script.now.monotonic
        #expect(first.contains(.scheduleWakeUp(start + .seconds(50))))
        // Samples at 0.5 s, 1.5 s, …; the wake-ups at 50 s and 60 s fall between them.
        script.advance(.milliseconds(500))
        var fired: [(Action, Duration)] = []
        for _ in 0..<70 {
            let next = script.now.monotonic + .seconds(1)
            if let wakeUp = script.engine.requestedWakeUp, wakeUp < next {
                for action in script.advance(wakeUp - script.now.monotonic).callbacks {
                    fired.append((action, script.now.monotonic - start))
                }
            }
            script.advance(
                next - script.now.monotonic,
                then: .sample(
                    UsageSample(
                        user: alice, session: SessionID("\(alice)-1"), presence: .active, applicationsInUse: [game])))
        }
        #expect(
            fired.map(\.0) == [
                .eventWillReachThresholdWarning(limit, activity: "daily", user: alice),
                .eventDidReachThreshold(limit, activity: "daily", user: alice),
            ])
        #expect(fired.map(\.1) == [.seconds(50), .seconds(60)])
    }

    @Test func thresholdsFireOncePerIntervalAndAgainTheNextDay() {
        var script = script(gamesActivity(warning: nil))
        script.sample(alice, [game])
        #expect(script.use(alice, [game], forSeconds: 600).count == 1)
        script.advance(to: wall(2025, 6, 5, 0, 0, 30, in: utc))
        script.sample(alice, [game])
        #expect(script.used(limit) == .zero)
        #expect(
            script.use(alice, [game], forSeconds: 61) == [
                .eventDidReachThreshold(limit, activity: "daily", user: alice)
            ])
    }

    @Test func onlyMatchingAppsInAnActiveSessionCount() {
        var script = script(gamesActivity(warning: nil))
        script.sample(alice, [editor])
        #expect(script.use(alice, [editor], forSeconds: 100).isEmpty)
        #expect(script.use(alice, [game], forSeconds: 30, presence: .idle).isEmpty)
        #expect(script.use(alice, [game], forSeconds: 30, presence: .locked).isEmpty)
        #expect(script.use(alice, [game], forSeconds: 30, presence: .background).isEmpty)
        #expect(script.used(limit) == .zero)
        script.sample(alice, [game])
        _ = script.use(alice, [game], forSeconds: 30)
        #expect(script.used(limit) == .seconds(30))
    }

    @Test func aUsersTimeCountsOnceAcrossSessionsAndApps() {
        let all: ActivityEventName = "all"
        var script = script(
            daily(events: [
                all: ActivityEvent(threshold: .seconds(3_600)),
                limit: ActivityEvent(
                    categories: [category("games")], threshold: .seconds(3_600)),
            ]))
        script.sample(alice, [game, use("game2")], session: "1")
        script.sample(alice, [game, editor], session: "2")
        for _ in 0..<100 {
            script.advance(.seconds(1), then: .wakeUp)
            script.sample(alice, [game, use("game2")], session: "1")
            script.sample(alice, [game, editor], session: "2")
        }
        #expect(script.used(all) == .seconds(100))
        #expect(script.used(limit) == .seconds(100))
    }

    @Test func anActiveSessionWithNothingInFrontCountsAsAllActivityOnly() {
        let all: ActivityEventName = "all"
        var script = script(
            daily(events: [
                all: ActivityEvent(threshold: .seconds(3_600)),
                limit: ActivityEvent(
                    categories: [category("games")], threshold: .seconds(3_600)),
            ]))
        script.sample(alice, [])
        _ = script.use(alice, [], forSeconds: 20)
        #expect(script.used(all) == .seconds(20))
        #expect(script.used(limit) == .zero)
    }

    @Test func eachUserHasTheirOwnCounters() {
        var script = script(gamesActivity(warning: nil))
        script.sample(alice, [game])
        script.sample(bob, [game])
        var callbacks: [Action] = []
        for second in 1...90 {
            callbacks += script.advance(.seconds(1), then: .wakeUp).callbacks
            callbacks += script.sample(alice, [game]).callbacks
            if second <= 45 { callbacks += script.sample(bob, [game]).callbacks }
        }
        #expect(callbacks == [.eventDidReachThreshold(limit, activity: "daily", user: alice)])
        #expect(script.used(limit, by: bob) == .seconds(47))  // 45 s of samples, then held for the 2 s hold limit
    }

    @Test func anActivityForSomeUsersIgnoresTheOthers() {
        var script = script(daily(events: [limit: ActivityEvent(threshold: .seconds(60))], users: [bob]))
        script.sample(alice, [game])
        #expect(script.use(alice, [game], forSeconds: 120).isEmpty)
        #expect(script.engine.usage(of: limit, in: "daily", for: alice) == nil)
    }

    @Test func severalEventsOfOneActivityFireInTheOrderUseReachesThem() {
        var script = script(
            daily(events: [
                "b.half": ActivityEvent(applications: [app("game")], threshold: .seconds(30)),
                "a.full": ActivityEvent(applications: [app("game")], threshold: .seconds(60)),
                "c.other": ActivityEvent(applications: [app("editor")], threshold: .seconds(10)),
            ]))
        script.sample(alice, [game])
        #expect(
            script.use(alice, [game], forSeconds: 120) == [
                .eventDidReachThreshold("b.half", activity: "daily", user: alice),
                .eventDidReachThreshold("a.full", activity: "daily", user: alice),
            ])
    }

    @Test func aStaleSampleStopsCountingAfterTheHoldLimit() {
        var script = script(gamesActivity(threshold: .seconds(3_600)))
        script.sample(alice, [game])
        // The collector stalls for a minute: the last sample holds for the hold limit (2 s, two ticks) only.
        script.advance(.seconds(60))
        #expect(script.used(limit) == .seconds(2))
        script.sample(alice, [game])
        script.advance(.seconds(5))
        #expect(script.used(limit) == .seconds(4))
    }

    @Test func anEndedSessionStopsCounting() {
        var script = script(gamesActivity(threshold: .seconds(3_600)))
        script.sample(alice, [game])
        script.advance(.seconds(1))
        script.sample(alice, [game])
        script.advance(.seconds(1), then: .sessionEnded(alice, SessionID("\(alice)-1")))
        script.advance(.seconds(5))
        #expect(script.used(limit) == .seconds(2))
    }

    @Test func aWarningLongerThanTheThresholdComesWithTheFirstUse() {
        var script = script(gamesActivity(threshold: .seconds(60), warning: .seconds(120)))
        script.sample(alice, [game])
        #expect(
            script.use(alice, [game], forSeconds: 1) == [
                .eventWillReachThresholdWarning(limit, activity: "daily", user: alice)
            ])
    }

    @Test func pastActivityCountsOnlyWhenTheEventAsks() {
        for includesPast in [false, true] {
            var script = EngineScript(at: wall(2025, 6, 4, 9, in: utc), in: utc)
            script.sample(alice, [game])
            _ = script.use(alice, [game], forSeconds: 40)
            script.sample(alice, [editor])
            _ = script.use(alice, [editor], forSeconds: 100)
            let started = script.handle(.startMonitoring(gamesActivity(warning: .seconds(30), past: includesPast)))
            if includesPast {
                #expect(script.used(limit) == .seconds(40))
                #expect(
                    started.callbacks == [
                        .intervalDidStart("daily"),
                        .eventWillReachThresholdWarning(limit, activity: "daily", user: alice),
                    ])
            } else {
                #expect(script.used(limit) == .zero)
                #expect(started.callbacks == [.intervalDidStart("daily")])
            }
        }
    }

    @Test func pastActivityBeyondTheThresholdFiresAtOnce() {
        var script = EngineScript(at: wall(2025, 6, 4, 9, in: utc), in: utc)
        script.sample(alice, [game])
        _ = script.use(alice, [game], forSeconds: 90)
        #expect(
            script.handle(.startMonitoring(gamesActivity(warning: nil, past: true))).callbacks == [
                .intervalDidStart("daily"), .eventDidReachThreshold(limit, activity: "daily", user: alice),
            ])
    }

    @Test func pastActivityBeforeTheIntervalStartDoesNotCount() {
        var script = EngineScript(at: wall(2025, 6, 4, 8, 59, in: utc), in: utc)
        script.sample(alice, [game])
        _ = script.use(alice, [game], forSeconds: 120)
        script.handle(
            .startMonitoring(
                daily(
                    from: pattern(hour: 9), to: pattern(hour: 17),
                    events: [
                        limit: ActivityEvent(
                            categories: [category("games")], threshold: .seconds(600), includesPastActivity: true)
                    ])))
        #expect(script.used(limit) == .seconds(60))
    }

    @Test func queriesReportUsageRemainingAndTheIntervals() throws {
        var script = script()
        script.sample(alice, [game])
        _ = script.use(alice, [game], forSeconds: 25)
        let usage = try #require(script.engine.usage(of: limit, in: "daily", for: alice))
        #expect(usage.used == .seconds(25) && usage.remaining == .seconds(35) && usage.isInInterval)
        #expect(!usage.thresholdReached && !usage.warningGiven)
        #expect(script.engine.usage(for: alice)["daily"]?[limit] == usage)
        #expect(script.engine.usage(of: "nothing", in: "daily", for: alice) == nil)
        #expect(
            script.engine.currentInterval(of: "daily")?.localEnd
                == LocalTime(year: 2025, month: 6, day: 4, hour: 23, minute: 59))
    }
}
