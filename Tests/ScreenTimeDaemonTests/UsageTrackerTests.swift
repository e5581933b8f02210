import Foundation
import ScreenTimeModel
import Testing
import UsageStore

@testable import ScreenTimeDaemon

@Suite struct UsageTracking {
    let game = AppUse(application: ApplicationToken(rawValue: "game"), category: ActivityCategoryToken(rawValue: "g"))
    let editor = AppUse(application: ApplicationToken(rawValue: "vim"), category: ActivityCategoryToken(rawValue: "d"))

    func sample(_ presence: SessionPresence, _ apps: [AppUse]) -> UsageSample {
        UsageSample(user: UserID(1000), session: SessionID("3"), presence: presence, applicationsInUse: apps)
    }

    @Test func anAppInFrontIsOneIntervalExtendedEachTick() {
        var tracker = UsageTracker()
        var last: [UsageInterval] = []
        for second in 0...5 {
            last = tracker.observe([sample(.active, [game])], monotonic: .seconds(second), wall: Date(timeIntervalSince1970: Double(1000 + second))).intervals
        }
        #expect(last.count == 1)
        #expect(last[0].duration == .seconds(5))
        #expect(last[0].start == Date(timeIntervalSince1970: 1000))
        #expect(last[0].end == Date(timeIntervalSince1970: 1005))
    }

    @Test func switchingAppsClosesOneIntervalAndOpensAnother() {
        var tracker = UsageTracker()
        _ = tracker.observe([sample(.active, [game])], monotonic: .seconds(0), wall: Date(timeIntervalSince1970: 0))
        let switched = tracker.observe([sample(.active, [editor])], monotonic: .seconds(3), wall: Date(timeIntervalSince1970: 3))
        #expect(switched.intervals.map(\.use) == [game])
        #expect(switched.intervals[0].duration == .seconds(3))
        let next = tracker.observe([sample(.active, [editor])], monotonic: .seconds(5), wall: Date(timeIntervalSince1970: 5))
        #expect(next.intervals.map(\.use) == [editor])
        #expect(next.intervals[0].duration == .seconds(2))
        #expect(switched.pickups.isEmpty)
    }

    @Test func anAppComingToTheFrontAfterLockOrIdleIsAPickup() {
        var tracker = UsageTracker()
        _ = tracker.observe([sample(.active, [game])], monotonic: .seconds(0), wall: Date(timeIntervalSince1970: 0))
        let locked = tracker.observe([sample(.locked, [game])], monotonic: .seconds(1), wall: Date(timeIntervalSince1970: 1))
        #expect(locked.intervals.count == 1)
        let paused = tracker.observe([sample(.locked, [game])], monotonic: .seconds(2), wall: Date(timeIntervalSince1970: 2))
        #expect(paused.intervals.isEmpty)
        let back = tracker.observe([sample(.active, [game])], monotonic: .seconds(3), wall: Date(timeIntervalSince1970: 3))
        #expect(back.pickups.map(\.application) == [game.application])
        #expect(back.pickups.first?.time == Date(timeIntervalSince1970: 3))
    }

    @Test func everyAppInUseOfASessionWithoutKnownFocusIsItsOwnInterval() {
        var tracker = UsageTracker()
        _ = tracker.observe([sample(.active, [game, editor])], monotonic: .seconds(0), wall: Date(timeIntervalSince1970: 0))
        let both = tracker.observe(
            [sample(.active, [game, editor])], monotonic: .seconds(4), wall: Date(timeIntervalSince1970: 4))
        #expect(Set(both.intervals.map(\.use)) == [game, editor])
        #expect(both.intervals.allSatisfy { $0.duration == .seconds(4) && $0.start == Date(timeIntervalSince1970: 0) })
        // The editor quits: its interval ends, the game's goes on.
        let one = tracker.observe([sample(.active, [game])], monotonic: .seconds(6), wall: Date(timeIntervalSince1970: 6))
        #expect(Set(one.intervals.map(\.use)) == [game, editor])
        let after = tracker.observe([sample(.active, [game])], monotonic: .seconds(8), wall: Date(timeIntervalSince1970: 8))
        #expect(after.intervals.map(\.use) == [game])
        #expect(after.intervals.first?.duration == .seconds(8))
    }
}
