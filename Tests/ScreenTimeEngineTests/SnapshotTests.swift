import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Persisting and restoring: a restarted daemon resumes the same counters and never counts the time it was away.
@Suite struct SnapshotTests {
    let limit: ActivityEventName = "limit"
    var registration: ActivityRegistration {
        daily(
            warning: .seconds(10),
            events: [limit: ActivityEvent(categories: [category("games")], threshold: .seconds(60))])
    }

    func roundTrip(_ engine: ActivityEngine) throws -> ActivityEngine {
        let data = try JSONEncoder().encode(engine.snapshot())
        return ActivityEngine(restoring: try JSONDecoder().decode(EngineSnapshot.self, from: data))
    }

    @Test func aRestartKeepsTheCountersAndCountsNothingWhileAway() throws {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(.startMonitoring(registration))
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 40)

        // The daemon dies; it comes back 30 s later with the last snapshot.
        script.engine = try roundTrip(script.engine)
        script.now.monotonic = script.now.monotonic + .seconds(30)
        script.now.wallClock = script.now.wallClock + .seconds(30)
        #expect(script.handle(.sessionsUnknown).callbacks.isEmpty)
        #expect(script.used(limit) == .seconds(40))
        script.sample(alice, [use("game")])
        let callbacks = script.use(alice, [use("game")], forSeconds: 30)
        #expect(
            callbacks == [
                .eventWillReachThresholdWarning(limit, activity: "daily", user: alice),
                .eventDidReachThreshold(limit, activity: "daily", user: alice),
            ])
        #expect(script.used(limit) == .seconds(70))
    }

    @Test func aRestoreAfterRebootCatchesUpTheScheduleWithoutCountingTheGap() throws {
        var script = EngineScript(at: wall(2025, 6, 4, 22, in: utc), in: utc, monotonic: .seconds(50_000))
        script.handle(.startMonitoring(registration))
        script.sample(alice, [use("game")])
        _ = script.use(alice, [use("game")], forSeconds: 20)
        let saved = try roundTrip(script.engine)

        // The next morning, the monotonic clock starts again near zero.
        var rebooted = EngineScript(at: wall(2025, 6, 5, 8, in: utc), in: utc, monotonic: .seconds(20))
        rebooted.engine = saved
        let actions = rebooted.handle(.sessionsUnknown)
        #expect(actions.callbacks == [.intervalDidEnd("daily"), .intervalDidStart("daily")])
        #expect(rebooted.used(limit) == .zero)
        #expect(actions.contains(.scheduleWakeUp(rebooted.now.monotonic + .seconds(15 * 3_600 + 58 * 60 + 50))))
    }

    @Test func aSnapshotOfAnotherFormatIsRefused() throws {
        var object =
            try JSONSerialization.jsonObject(
                with: JSONEncoder().encode(ActivityEngine(timeZone: utc).snapshot())) as! [String: Any]
        object["formatVersion"] = 99
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(EngineSnapshot.self, from: data) }
    }

    @Test func storesAndShieldsSurviveARestore() throws {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        script.handle(
            .settingsStoreChanged(user: alice, store: "limits", settings: ShieldSettings(applications: [app("game")])))
        let restored = try roundTrip(script.engine)
        #expect(restored.effectiveShield(for: alice).shields(use("game")))
        #expect(restored.settings(of: "limits", for: alice) == ShieldSettings(applications: [app("game")]))
        #expect(restored.timeZone == utc)
    }
}
