import Enforcement
import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// The daemon's runtime driven alone, with scripted events and simulated time.
@Suite struct DaemonRuntimeTests {
    static let user = UserID(1000)
    static let game = AppUse(application: token("org.example.Game"), category: category(.games))
    static let video = AppUse(application: token("vlc"), category: category(.entertainment))
    static let calculator = AppUse(application: token("org.gnome.Calculator"), category: category(.utilities))

    static func token(_ id: String) -> ApplicationToken { ApplicationToken(rawValue: "app:" + id) }
    static func category(_ category: ActivityCategory) -> ActivityCategoryToken {
        ActivityCategoryToken(rawValue: "cat:" + category.rawValue)
    }

    static let policyText = """
        always_allowed = ["org.gnome.Calculator"]
        [[limit]]
        name = "games"
        apps = ["org.example.Game"]
        daily = "20s"
        warning = "5s"
        [[limit]]
        name = "video"
        apps = ["vlc"]
        daily = "10s"
        shield = "terminate"
        [shield]
        extra = "15m"
        extra_times = 1
        """

    /// A runtime and a clock: 10:00 UTC on a Wednesday, ticks of one second.
    struct Harness {
        var runtime = DaemonRuntime(
            settings: DaemonSettings(
                system: false, policyPath: "/nonexistent/policy.toml", databasePath: "/nonexistent/usage.sqlite",
                enforcementStatePath: "/nonexistent/enforcement.json", tokenKeyPath: "/nonexistent/token.key",
                users: nil))
        var monotonic: Int64 = 5_000 * 1_000_000_000
        var wall: Int64 = 1_795_600_800 * 1_000_000_000
        var revision: UInt64 = 0

        var now: Now {
            Now(
                monotonic: MonotonicInstant(nanoseconds: monotonic),
                wallClock: WallClockInstant(nanosecondsSince1970: wall),
                timeZone: TimeZone(identifier: "UTC"))
        }

        @discardableResult
        mutating func handle(_ event: DaemonRuntime.Event) -> [DaemonRuntime.Action] { runtime.handle(event, at: now) }

        @discardableResult
        mutating func load(_ text: String = DaemonRuntimeTests.policyText) throws -> [DaemonRuntime.Action] {
            let policy = try Policy.parse(text, file: "test.toml")
            let plan = PolicyPlan(policy: policy, appToken: { token($0.rawValue) }, categoryToken: { category($0) })
            return handle(.policyLoaded(plan))
        }

        mutating func advance(_ seconds: Int64) {
            monotonic += seconds * 1_000_000_000
            wall += seconds * 1_000_000_000
        }

        /// `seconds` ticks with `app` in front of the user's active session; every action they gave.
        mutating func use(_ app: AppUse?, for seconds: Int, presence: SessionPresence = .active) -> [DaemonRuntime
            .Action]
        {
            var actions: [DaemonRuntime.Action] = []
            let sample = UsageSample(
                user: DaemonRuntimeTests.user, session: SessionID("2"), presence: presence,
                applicationsInUse: app.map { [$0] } ?? [])
            for _ in 0..<seconds {
                advance(1)
                revision += 1
                actions += handle(.tick([sample], revision: revision))
            }
            return actions
        }

        func shielded(_ app: AppUse) -> Bool { runtime.shields[DaemonRuntimeTests.user]?.shields(app) ?? false }
    }

    static func writes(_ actions: [DaemonRuntime.Action]) -> [StoreWriter.Batch] {
        actions.compactMap { if case .write(let batch) = $0 { batch } else { nil } }
    }

    static func snapshot(of actions: [DaemonRuntime.Action]) throws -> EngineSnapshot {
        let record = try #require(writes(actions).last { $0.snapshot != nil }?.snapshot)
        return try JSONDecoder().decode(EngineSnapshot.self, from: record.blob)
    }

    /// Every tick flushes, also when ticks come late by different amounts (timer slack): a tick 0.96 s after a late
    /// one is not "under a second" to wait for, or a `kill -9` would lose up to two seconds.
    @Test func eachTickFlushesThoughTicksComeLateByDifferentAmounts() throws {
        var harness = Harness()
        try harness.load()
        let sample = UsageSample(
            user: Self.user, session: SessionID("2"), presence: .active, applicationsInUse: [Self.calculator])
        var flushes = 0
        for lateness in [50, 10, 0, 45, 5, 30, 0] {
            harness.monotonic = (harness.monotonic / 1_000_000_000 + 1) * 1_000_000_000 + Int64(lateness) * 1_000_000
            harness.revision += 1
            flushes += Self.writes(harness.handle(.tick([sample], revision: harness.revision))).count
        }
        #expect(flushes == 7)
    }

    @Test func aLimitShieldsItsAppOnceTheDailyUseIsReached() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        let before = harness.use(Self.game, for: 19)
        #expect(!harness.shielded(Self.game))
        #expect(!before.contains { if case .notifyShield = $0 { true } else { false } })
        let at = harness.use(Self.game, for: 2)
        #expect(harness.shielded(Self.game))
        #expect(!harness.shielded(Self.calculator))
        #expect(at.contains { if case .notifyShield(_, "games", _, _, "15 min more") = $0 { true } else { false } })
        #expect(at.contains { if case .limitReached = $0 { true } else { false } })
    }

    @Test func aWarningComesWarningTimeBeforeTheLimit() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        #expect(!harness.use(Self.game, for: 14).contains { if case .warn = $0 { true } else { false } })
        #expect(
            harness.use(Self.game, for: 2).contains {
                if case .warn(Self.user, "5 s left for games", _) = $0 { true } else { false }
            })
    }

    @Test func aRestartRestoresTheShieldsBeforeAnyPolicyOrSample() throws {
        var first = Harness()
        first.handle(.restarted(nil))
        try first.load()
        let actions = first.use(Self.game, for: 22)
        let snapshot = try Self.snapshot(of: actions + [first.runtime.flush(at: first.now)])
        var second = Harness()
        second.monotonic = first.monotonic + 3_000_000_000
        second.wall = first.wall + 3_000_000_000
        second.handle(.restarted(snapshot))
        #expect(second.shielded(Self.game))
        try second.load()
        #expect(second.shielded(Self.game))
        _ = second.use(Self.game, for: 3)
        #expect(second.shielded(Self.game))
    }

    @Test func aRestartWithoutASnapshotShieldsNothing() {
        var harness = Harness()
        harness.handle(.restarted(nil))
        #expect(harness.runtime.shields.isEmpty)
    }

    @Test func aRestartResumesTheCountersSoTheLimitComesAtTheSameTotalUse() throws {
        var first = Harness()
        first.handle(.restarted(nil))
        try first.load()
        let actions = first.use(Self.game, for: 12)
        let snapshot = try Self.snapshot(of: actions + [first.runtime.flush(at: first.now)])
        var second = Harness()
        second.monotonic = first.monotonic + 1_000_000_000
        second.wall = first.wall + 1_000_000_000
        second.handle(.restarted(snapshot))
        try second.load()
        _ = second.use(Self.game, for: 7)
        #expect(!second.shielded(Self.game))
        _ = second.use(Self.game, for: 3)
        #expect(second.shielded(Self.game))
    }

    @Test func timeInFrontOfAShieldedAppIsNotUse() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        _ = harness.use(Self.game, for: 22)
        let used = try #require(
            harness.runtime.engine.usage(
                of: PolicyPlan.limitEvent, in: DeviceActivityName("limit.games"), for: Self.user))
        _ = harness.use(Self.game, for: 30)
        let later = try #require(
            harness.runtime.engine.usage(
                of: PolicyPlan.limitEvent, in: DeviceActivityName("limit.games"), for: Self.user))
        #expect(later.used == used.used)
    }

    @Test func aRefusedPolicyKeepsThePolicyInForceAndSaysWhy() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        let error = PolicyError(file: "test.toml", line: 3, column: 9, message: "bad")
        let actions = harness.handle(.policyRefused(error))
        #expect(harness.runtime.policyError == error)
        #expect(harness.runtime.plan.limits.count == 2)
        #expect(actions.contains { if case .log(.error, _, _) = $0 { true } else { false } })
        try harness.load()
        #expect(harness.runtime.policyError == nil)
    }

    @Test func aLimitRemovedFromThePolicyReleasesItsShield() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        _ = harness.use(Self.game, for: 22)
        #expect(harness.shielded(Self.game))
        try harness.load("[[limit]]\nname = \"video\"\napps = [\"vlc\"]\ndaily = \"10s\"\n")
        #expect(!harness.shielded(Self.game))
    }

    @Test func aTerminateLimitTerminatesAndACloseRequestTerminatesAFrozenApp() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        let video = (token: Self.video.application, category: Self.video.category)
        let game = (token: Self.game.application, category: Self.game.category)
        _ = harness.use(Self.video, for: 12)
        _ = harness.use(Self.game, for: 22)
        #expect(
            harness.runtime.mode(for: video, app: AppID("vlc"), user: Self.user)
                == .terminate(grace: Policy.defaultTerminateGrace))
        #expect(harness.runtime.mode(for: game, app: AppID("org.example.Game"), user: Self.user) == .freeze)
        harness.handle(.answered(NotificationAnswer(user: Self.user, subject: .limit("games"), choice: .close)))
        #expect(
            harness.runtime.mode(for: game, app: AppID("org.example.Game"), user: Self.user)
                == .terminate(grace: .seconds(5)))
        // Another user's game is not closed by it.
        #expect(harness.runtime.mode(for: game, app: AppID("org.example.Game"), user: UserID(1001)) == .freeze)
        // Kept while the shield is up, forgotten once it is down.
        harness.runtime.keepCloseRequests(for: [])
        #expect(harness.runtime.closeRequested == [.limit(SettingsStoreName("limit.games"), of: Self.user)])
        var actions: [DaemonRuntime.Action] = []
        _ = harness.runtime.grantExtraTime(.seconds(10), limit: "games", to: Self.user, at: harness.now, into: &actions)
        harness.runtime.keepCloseRequests(for: [])
        #expect(harness.runtime.closeRequested.isEmpty)
    }

    @Test func aTerminateLimitOfCategoriesTerminatesTheAppsOfItsCategories() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load(
            "[[limit]]\nname = \"fun\"\ncategories = [\"entertainment\"]\ndaily = \"10s\"\nshield = \"terminate\"\n")
        let video = (token: Self.video.application, category: Self.video.category)
        #expect(harness.runtime.mode(for: video, app: AppID("vlc"), user: Self.user) == .freeze)
        _ = harness.use(Self.video, for: 12)
        #expect(harness.shielded(Self.video))
        #expect(
            harness.runtime.mode(for: video, app: AppID("vlc"), user: Self.user)
                == .terminate(grace: Policy.defaultTerminateGrace))
    }

    @Test func downtimeFreezesAnAppOfATerminateLimit() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load(
            Self.policyText.replacingOccurrences(
                of: "[shield]", with: "[[downtime]]\nname = \"day\"\nstart = \"09:00\"\nend = \"11:00\"\n[shield]"))
        _ = harness.use(Self.calculator, for: 1)
        #expect(harness.shielded(Self.video))
        #expect(!harness.shielded(Self.calculator))
        let label = (token: Self.video.application, category: Self.video.category)
        #expect(harness.runtime.mode(for: label, app: AppID("vlc"), user: Self.user) == .freeze)
    }

    @Test func aDowntimeInProgressIsInForceAgainAfterARestart() throws {
        let text = Self.policyText.replacingOccurrences(
            of: "[shield]", with: "[[downtime]]\nname = \"day\"\nstart = \"09:00\"\nend = \"11:00\"\n[shield]")
        var first = Harness()
        first.handle(.restarted(nil))
        try first.load(text)
        let snapshot = try Self.snapshot(of: first.use(Self.calculator, for: 2) + [first.runtime.flush(at: first.now)])
        var second = Harness()
        second.monotonic = first.monotonic
        second.wall = first.wall
        second.handle(.restarted(snapshot))
        try second.load(text)
        let label = (token: Self.video.application, category: Self.video.category)
        #expect(second.shielded(Self.video))
        #expect(second.runtime.mode(for: label, app: AppID("vlc"), user: Self.user) == .freeze)
    }

    /// A harness whose user reached the games' limit (20 s) and took its extra time (15 min) from the shield.
    static func extraTimeTaken() throws -> Harness {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        _ = harness.use(Self.game, for: 22)
        harness.handle(.answered(NotificationAnswer(user: Self.user, subject: .limit("games"), choice: .extraTime)))
        return harness
    }

    @Test func extraTimeFromTheShieldLiftsItOnceAndIsRecorded() throws {
        var harness = try Self.extraTimeTaken()
        #expect(!harness.shielded(Self.game))
        let batch = try #require(Self.writes([harness.runtime.flush(at: harness.now)]).first)
        #expect(batch.grants.map(\.seconds) == [900])
        // Pressed again while the extra time runs: its shield is down, nothing more is given.
        let refused = harness.handle(
            .answered(NotificationAnswer(user: Self.user, subject: .limit("games"), choice: .extraTime)))
        #expect(
            refused.contains {
                if case .log(.notice, "extra time refused: the limit is not reached", _) = $0 { true } else { false }
            })
        #expect(Self.writes([harness.runtime.flush(at: harness.now)]).flatMap(\.grants).isEmpty)
    }

    @Test func aPolicyEditWhileExtraTimeRunsKeepsTheShieldDownUntilTheExtraTimeIsUsed() throws {
        var harness = try Self.extraTimeTaken()
        #expect(!harness.shielded(Self.game))
        // The guardian adds an app to the limit: its activity starts again and counts the day's 22 s anew.
        let edited = Self.policyText.replacingOccurrences(
            of: "apps = [\"org.example.Game\"]", with: "apps = [\"org.example.Game\", \"org.example.Other\"]")
        let reloaded = try harness.load(edited) + harness.use(Self.game, for: 2)
        #expect(!harness.shielded(Self.game))
        #expect(!reloaded.contains { if case .notifyShield = $0 { true } else { false } })
        // The extra 15 minutes, used up: shielded again.
        _ = harness.use(Self.game, for: 15 * 60)
        #expect(harness.shielded(Self.game))
    }

    @Test func extraTimeTakenFromTheShieldIsNotGivenBackByARestart() throws {
        let text = Self.policyText.replacingOccurrences(of: "extra = \"15m\"", with: "extra = \"10s\"")
        var first = Harness()
        first.handle(.restarted(nil))
        try first.load(text)
        let answer = NotificationAnswer(user: Self.user, subject: .limit("games"), choice: .extraTime)
        // Not offered before the limit is reached.
        let early = first.handle(.answered(answer))
        #expect(
            early.contains {
                if case .log(.notice, "extra time refused: the limit is not reached", _) = $0 { true } else { false }
            })
        _ = first.use(Self.game, for: 22)
        first.handle(.answered(answer))
        #expect(!first.shielded(Self.game))
        _ = first.use(Self.game, for: 12)
        #expect(first.shielded(Self.game))
        let snapshot = try Self.snapshot(of: [first.runtime.flush(at: first.now)])
        var second = Harness()
        second.monotonic = first.monotonic + 3_000_000_000
        second.wall = first.wall + 3_000_000_000
        second.handle(.restarted(snapshot))
        try second.load(text)
        let refused = second.handle(.answered(answer))
        #expect(
            refused.contains {
                if case .log(.notice, "extra time refused: none left today", _) = $0 { true } else { false }
            })
        _ = second.use(Self.game, for: 2)
        #expect(second.shielded(Self.game))
    }

    @Test func extraTimeAskedForLiftsOnlyAReachedLimitForThatTimeAndIsRecorded() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        var actions: [DaemonRuntime.Action] = []
        let now = harness.now
        // Before the limit: nothing to lift.
        #expect(
            harness.runtime.grantExtraTime(.seconds(10), limit: nil, to: Self.user, at: now, into: &actions)
                == .failure(.notReached(nil)))
        #expect(
            harness.runtime.grantExtraTime(.seconds(10), limit: "chess", to: Self.user, at: now, into: &actions)
                == .failure(.noSuchLimit("chess", known: ["games", "video"])))
        _ = harness.use(Self.game, for: 22)
        #expect(harness.shielded(Self.game))
        #expect(
            harness.runtime.grantExtraTime(.seconds(10), limit: "video", to: Self.user, at: harness.now, into: &actions)
                == .failure(.notReached("video")))
        // Reached: lifted for 10 s of the game's use, then shielded again; not counted against the shield's one grant.
        #expect(
            harness.runtime.grantExtraTime(.seconds(10), limit: nil, to: Self.user, at: harness.now, into: &actions)
                == .success(["games"]))
        _ = harness.runtime.handle(.wakeUp, at: harness.now)
        #expect(!harness.shielded(Self.game))
        var written = Self.writes(harness.use(Self.game, for: 5))
        #expect(!harness.shielded(Self.game))
        written += Self.writes(harness.use(Self.game, for: 6))
        #expect(harness.shielded(Self.game))
        written += Self.writes([harness.runtime.flush(at: harness.now)])
        #expect(written.flatMap(\.grants).map(\.seconds) == [10])
        #expect(written.flatMap(\.grants).map(\.reason) == ["screentime extra"])
        harness.handle(.answered(NotificationAnswer(user: Self.user, subject: .limit("games"), choice: .extraTime)))
        #expect(!harness.shielded(Self.game))
    }

    @Test func theLedgerIsWrittenOncePerFlushIntervalWithTheSnapshotWhenUseCounted() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        let first = Self.writes(harness.use(Self.game, for: 1))
        #expect(first.count == 1)
        #expect(first[0].snapshot != nil)
        let idle = Self.writes(harness.use(nil, for: 4))
        #expect(idle.count == 4)
        #expect(idle.dropFirst().allSatisfy { $0.snapshot == nil })
    }

    @Test func usageIntervalsGoToTheLedger() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        let batches = Self.writes(harness.use(Self.calculator, for: 5))
        let intervals = batches.flatMap(\.intervals)
        #expect(intervals.last?.use == Self.calculator)
        #expect(intervals.last?.duration == .seconds(4))
    }

    @Test func aLockedSessionCountsNothing() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        _ = harness.use(Self.game, for: 30, presence: .locked)
        #expect(!harness.shielded(Self.game))
    }

    @Test func storeFaultsAreKeptUntilTheStoreWritesAgain() {
        var harness = Harness()
        harness.handle(.restarted(nil))
        harness.handle(.storeFault("disk full"))
        #expect(harness.runtime.storeFault == "disk full")
        harness.handle(.storeFault(nil))
        #expect(harness.runtime.storeFault == nil)
    }

    @Test func aWallClockJumpIsLoggedAndDoesNotCount() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        try harness.load()
        _ = harness.use(Self.game, for: 2)
        harness.wall += 3_600 * 1_000_000_000
        let actions = harness.use(Self.game, for: 1)
        #expect(actions.contains { if case .log(.notice, "wall clock changed", _) = $0 { true } else { false } })
        let usage = try #require(
            harness.runtime.engine.usage(
                of: PolicyPlan.limitEvent, in: DeviceActivityName("limit.games"), for: Self.user))
        #expect(usage.used <= .seconds(3))
    }

    @Test func theShieldRevisionChangesWithShieldsAndPolicies() throws {
        var harness = Harness()
        harness.handle(.restarted(nil))
        let start = harness.runtime.shieldRevision
        try harness.load()
        let loaded = harness.runtime.shieldRevision
        #expect(loaded != start)
        _ = harness.use(Self.game, for: 22)
        #expect(harness.runtime.shieldRevision != loaded)
    }
}

extension DaemonRuntimeTests {
    /// Runs `first` for `seconds` of use, then restarts from its last flushed snapshot after `gap` seconds and uses
    /// the game for 3 more seconds; returns the use counted.
    static func useAcrossRestart(gap: Int64) throws -> Duration {
        var first = Harness()
        first.handle(.restarted(nil))
        try first.load()
        let snapshot = try snapshot(of: first.use(game, for: 5) + [first.runtime.flush(at: first.now)])
        var second = Harness()
        second.monotonic = first.monotonic + gap * 1_000_000_000
        second.wall = first.wall + gap * 1_000_000_000
        second.handle(.restarted(snapshot))
        try second.load()
        _ = second.use(game, for: 3)
        let usage = try #require(
            second.runtime.engine.usage(of: PolicyPlan.limitEvent, in: DeviceActivityName("limit.games"), for: user))
        return usage.used
    }

    @Test func aQuickRestartCountsTheGapLikeALateTick() throws {
        // 4 s counted before (the first sample starts the count), 1 s gap, 3 s after: the gap counts.
        #expect(try Self.useAcrossRestart(gap: 1) == .seconds(8))
    }

    @Test func aLongPauseBeforeARestartCountsNothingOfIt() throws {
        // 10 s away: stale; counting starts again at the first sample after the restart.
        #expect(try Self.useAcrossRestart(gap: 10) == .seconds(6))
    }
}
