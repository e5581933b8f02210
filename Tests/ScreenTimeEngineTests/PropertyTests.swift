import Foundation
import PropertyBased
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// One step of a random sample stream: after `gap` tenths of a second, a session of a user reports a presence and
/// an app (or nothing) in front.
struct Step: Sendable, CustomStringConvertible {
    var gapTenths: Int
    var presence: SessionPresence
    var app: Int
    var session: Int
    var user: Int

    static let apps: [[AppUse]] = [
        [use("game")], [use("editor", category: "productivity")], [], [use("game"), use("chess")],
    ]
    var uses: [AppUse] { Self.apps[app] }
    var userID: UserID { user == 0 ? alice : bob }
    var sample: UsageSample {
        UsageSample(
            user: userID, session: SessionID("\(userID)-\(session)"), presence: presence, applicationsInUse: uses)
    }
    var description: String { "+\(gapTenths)ds u\(user) s\(session) \(presence) app\(app)" }
}

let presences: [SessionPresence] = [.active, .active, .active, .idle, .locked, .background]

func steps(maxGapTenths: Int, users: ClosedRange<Int> = 0...0, count: ClosedRange<Int> = 1...200)
    -> Generator<[Step], AnySequence<Any>>
{
    zip(
        Gen.int(in: 1...maxGapTenths), Gen.int(in: 0...(presences.count - 1)), Gen.int(in: 0...3), Gen.int(in: 0...1),
        Gen.int(in: users)
    )
    .map { gap, presence, app, session, user in
        Step(gapTenths: gap, presence: presences[presence], app: app, session: session, user: user)
    }
    .array(of: count)
    .eraseToAny()
}

/// An engine at noon with an all-day activity counting all activity and games, and an every-half-hour activity.
func propertyEngine(threshold: Duration = .seconds(86_400), warning: Duration? = nil) -> EngineScript {
    var script = EngineScript(at: wall(2025, 6, 4, 12, in: utc), in: utc)
    script.handle(
        .startMonitoring(
            daily(
                from: pattern(hour: 0), to: pattern(hour: 0), warning: warning,
                events: [
                    "all": ActivityEvent(threshold: threshold),
                    "games": ActivityEvent(categories: [category("games")], threshold: threshold),
                ])))
    script.handle(
        .startMonitoring(
            daily(
                "halves", from: pattern(minute: 0), to: pattern(minute: 30),
                events: ["games": ActivityEvent(categories: [category("games")], threshold: .seconds(300))])))
    return script
}

extension EngineScript {
    /// Plays steps; returns the actions of each step.
    @discardableResult
    mutating func play(_ steps: some Sequence<Step>, wakeUpHalfway: Bool = false) -> [[Action]] {
        steps.map { step in
            var actions: [Action] = []
            if wakeUpHalfway, step.gapTenths > 1 {
                actions += advance(.milliseconds(step.gapTenths / 2 * 100))
                actions += advance(
                    .milliseconds((step.gapTenths - step.gapTenths / 2) * 100), then: .sample(step.sample))
            } else {
                actions += advance(.milliseconds(step.gapTenths * 100), then: .sample(step.sample))
            }
            return actions
        }
    }
}

/// What a stream is worth, counted by brute force a tenth of a second at a time: time during which some session of
/// the user has a fresh (younger than the hold limit), active sample showing something the predicate accepts. One
/// running total per step, as it stands when that step's sample arrives.
func bruteForceCumulativeUse(_ steps: [Step], user: Int, holdTenths: Int = 20, counts: ([AppUse]) -> Bool)
    -> [Duration]
{
    var sessions: [Int: (presence: SessionPresence, uses: [AppUse], at: Int)] = [:]
    var time = 0
    var total = 0
    var totals: [Duration] = []
    for step in steps {
        for tick in time..<(time + step.gapTenths) {
            let fresh = sessions.values.filter { tick < $0.at + holdTenths && $0.presence == .active }
            if !fresh.isEmpty, counts(fresh.flatMap(\.uses)) { total += 1 }
        }
        time += step.gapTenths
        if step.user == user { sessions[step.session] = (step.presence, step.uses, time) }
        totals.append(.milliseconds(total * 100))
    }
    return totals
}

func bruteForceUse(_ steps: [Step], user: Int, counts: ([AppUse]) -> Bool) -> Duration {
    bruteForceCumulativeUse(steps, user: user, counts: counts).last ?? .zero
}

func playsGames(_ uses: [AppUse]) -> Bool { uses.contains { $0.category == category("games") } }

@Suite struct PropertyTests {
    @Test func countedUseEqualsActiveTimeAndNeverExceedsIt() async {
        await propertyCheck(input: steps(maxGapTenths: 200)) { steps in
            var script = propertyEngine()
            script.play(steps)
            let all = bruteForceUse(steps, user: 0) { _ in true }
            let games = bruteForceUse(steps, user: 0, counts: playsGames)
            let elapsed = Duration.milliseconds(steps.reduce(0) { $0 + $1.gapTenths } * 100)
            #expect(script.used("all") == all)
            #expect(script.used("games") == games)
            #expect(games <= all && all <= elapsed)
        }
    }

    @Test func splittingTheStreamWithWakeUpsChangesNoTotalAndNoCallback() async {
        await propertyCheck(input: steps(maxGapTenths: 200)) { steps in
            var whole = propertyEngine(threshold: .seconds(120), warning: .seconds(30))
            var split = propertyEngine(threshold: .seconds(120), warning: .seconds(30))
            whole.play(steps)
            split.play(steps, wakeUpHalfway: true)
            #expect(split.used("all") == whole.used("all"))
            #expect(split.used("games") == whole.used("games"))
            #expect(split.used("games", in: "halves") == whole.used("games", in: "halves"))
            #expect(split.log.callbacks == whole.log.callbacks)
        }
    }

    @Test func mergingTwoUsersStreamsGivesEachTheTotalsTheyHaveAlone() async {
        await propertyCheck(input: steps(maxGapTenths: 150, users: 0...1)) { steps in
            var merged = propertyEngine(threshold: .seconds(60))
            merged.play(steps)
            // A user's points reached since their last sample fire at the next wake-up, which counts every user.
            merged.advance(.zero)
            for user in [alice, bob] {
                // The same timeline with the other user's samples turned into plain wake-ups.
                var alone = propertyEngine(threshold: .seconds(60))
                for step in steps {
                    let span = Duration.milliseconds(step.gapTenths * 100)
                    alone.advance(span, then: step.userID == user ? .sample(step.sample) : .wakeUp)
                }
                alone.advance(.zero)
                #expect(alone.used("all", by: user) == merged.used("all", by: user))
                #expect(alone.used("games", by: user) == merged.used("games", by: user))
                let mine: (Action) -> Bool = {
                    switch $0 {
                    case .eventDidReachThreshold(_, _, let who), .eventWillReachThresholdWarning(_, _, let who):
                        who == user
                    default: false
                    }
                }
                #expect(alone.log.filter(mine) == merged.log.filter(mine))
            }
        }
    }

    @Test func aSnapshotRestoredAtAnyPointGivesTheSameFutureActions() async throws {
        await propertyCheck(input: steps(maxGapTenths: 300, users: 0...1, count: 2...150), Gen.int(in: 0...1_000)) {
            steps, cut in
            let split = cut % steps.count
            var original = propertyEngine(threshold: .seconds(90), warning: .seconds(20))
            let expected = original.play(steps)

            var before = propertyEngine(threshold: .seconds(90), warning: .seconds(20))
            before.play(steps[..<split])
            let data = try JSONEncoder().encode(before.engine.snapshot())
            var restored = before
            restored.engine = ActivityEngine(restoring: try JSONDecoder().decode(EngineSnapshot.self, from: data))
            let after = restored.play(steps[split...])
            #expect(after == Array(expected[split...]))
        }
    }

    @Test func thresholdsFireOnTheSampleTheBruteForceAnswerNames() async {
        await propertyCheck(input: steps(maxGapTenths: 30, count: 10...300), Gen.int(in: 1...200), Gen.int(in: 0...60))
        {
            steps, thresholdSeconds, warningSeconds in
            let threshold = Duration.seconds(thresholdSeconds)
            let warning = Duration.seconds(warningSeconds)
            var script = propertyEngine(threshold: threshold, warning: warning)
            let actions = script.play(steps)
            let cumulative = bruteForceCumulativeUse(steps, user: 0, counts: playsGames)
            let warnedAt = cumulative.firstIndex { $0 > .zero && $0 >= max(threshold - warning, .zero) }
            let reachedAt = cumulative.firstIndex { $0 >= threshold }
            let fired = { (action: Action) in actions.firstIndex { $0.contains(action) } }
            #expect(fired(.eventDidReachThreshold("games", activity: "daily", user: alice)) == reachedAt)
            #expect(fired(.eventWillReachThresholdWarning("games", activity: "daily", user: alice)) == warnedAt)
            #expect(
                actions.joined().filter { $0 == .eventDidReachThreshold("games", activity: "daily", user: alice) }.count
                    <= 1)
        }
    }
}
