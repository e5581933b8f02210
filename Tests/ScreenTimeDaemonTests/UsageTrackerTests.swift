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

    @Test func withTheFocusUnknownEveryAppInUseIsRecordedAndOnePickupCounted() {
        var tracker = UsageTracker()
        _ = tracker.observe([sample(.locked, [])], monotonic: .seconds(0), wall: Date(timeIntervalSince1970: 0))
        let both = tracker.observe([sample(.active, [game, editor])], monotonic: .seconds(1), wall: Date(timeIntervalSince1970: 1))
        #expect(both.pickups.count == 1)
        let later = tracker.observe([sample(.active, [game, editor])], monotonic: .seconds(4), wall: Date(timeIntervalSince1970: 4))
        #expect(Set(later.intervals.map(\.use)) == [game, editor])
        #expect(later.intervals.allSatisfy { $0.duration == .seconds(3) })
        // The editor quits: its interval ends, the game's goes on.
        let one = tracker.observe([sample(.active, [game])], monotonic: .seconds(6), wall: Date(timeIntervalSince1970: 6))
        #expect(Set(one.intervals.map(\.use)) == [game, editor])
        let next = tracker.observe([sample(.active, [game])], monotonic: .seconds(7), wall: Date(timeIntervalSince1970: 7))
        #expect(next.intervals.map(\.use) == [game])
        #expect(next.intervals[0].duration == .seconds(6))
        #expect(next.pickups.isEmpty)
    }

    @Test func aSuspendOrAClockChangeEndsTheIntervalsAtTheLastTick() {
        var tracker = UsageTracker()
        for second in 0...3 {
            let wall = Date(timeIntervalSince1970: Double(1000 + second))
            _ = tracker.observe([sample(.active, [game])], monotonic: .seconds(second), wall: wall)
        }
        // Eight hours asleep: the monotonic clock moved one second, the wall clock eight hours. The interval written
        // at the last tick (1000–1003) is not extended over the night; a new one starts now.
        let asleep = Date(timeIntervalSince1970: 1004 + 8 * 3600)
        let resumed = tracker.observe([sample(.active, [game])], monotonic: .seconds(4), wall: asleep)
        #expect(resumed.intervals.isEmpty)
        let next = tracker.observe([sample(.active, [game])], monotonic: .seconds(5), wall: asleep + 1)
        #expect(next.intervals.map(\.start) == [asleep])
        #expect(next.intervals.map(\.duration) == [.seconds(1)])
        #expect(next.pickups.isEmpty)
        // The wall clock set an hour back: a new interval from the new time, never one that ends before it started.
        let setBack = asleep - 3600
        #expect(tracker.observe([sample(.active, [game])], monotonic: .seconds(6), wall: setBack).intervals.isEmpty)
        // Late ticks (both clocks moved alike) go on with the same interval.
        let late = tracker.observe([sample(.active, [game])], monotonic: .seconds(16), wall: setBack + 10)
        #expect(late.intervals.map(\.start) == [setBack])
        #expect(late.intervals.map(\.duration) == [.seconds(10)])
    }
}
