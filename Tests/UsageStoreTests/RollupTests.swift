import Foundation
import GRDB
import ScreenTimeModel
import Testing

@testable import UsageStore

/// Daily rollups: the same figures as the raw intervals, kept for closed days, outdated by late intervals.
@Suite struct RollupTests {
    let user = UserID(1001)
    let apps = (0..<6).map {
        AppUse(
            application: ApplicationToken(rawValue: "tok-app\($0)"),
            category: ActivityCategoryToken(rawValue: "cat\($0 % 3)"))
    }
    /// Seven days of UTC midnights, from a Monday.
    let days: [DateInterval] = (0..<7).map {
        DateInterval(start: Date(timeIntervalSince1970: 1_795_564_800 + Double($0) * 86_400), duration: 86_400)
    }

    /// A week of use: intervals of a few minutes, some across midnight, two sessions at once, a span slept through.
    func ledger() throws -> (UsageDatabase, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let database = try UsageDatabase.open(at: directory.databasePath)
        var recorder = UsageRecorder(database: database, bootID: "boot")
        var generator = SystemRandomNumberGenerator()
        var time = days[0].start + 3600
        var index = 0
        while time < days[6].end {
            let seconds = Int64.random(in: 30...900, using: &generator)
            let use = apps[index % apps.count]
            let slept = index % 17 == 0 ? seconds / 2 : seconds
            recorder.record(
                UsageInterval(
                    user: user, session: SessionID(index % 5 == 0 ? "ssh" : "seat0"), use: use, start: time,
                    end: time + TimeInterval(seconds), duration: .seconds(slept)))
            if index % 4 == 0 {
                recorder.record(
                    Pickup(user: user, session: SessionID("seat0"), application: use.application, time: time))
            }
            time += TimeInterval(seconds) + (index % 9 == 0 ? 7200 : Double.random(in: 0...120, using: &generator))
            index += 1
        }
        try recorder.flush()
        return (database, directory)
    }

    @Test func closedDaysFromRollupsMatchTheRawIntervalsAndAreKept() throws {
        let (database, directory) = try ledger()
        defer { directory.remove() }
        let now = days[6].end
        let raw = try days.map { try database.report(for: user, from: $0.start, to: $0.end) }
        let first = try database.report(for: user, days: days, now: now)
        let rolled = try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyRollup") }
        #expect(rolled == days.count)
        let second = try database.report(for: user, days: days, now: now)
        for (expected, reports) in zip(raw, zip(first, second)) {
            for report in [reports.0, reports.1] {
                #expect(report.start == expected.start && report.end == expected.end)
                #expect(report.durationByApplication == expected.durationByApplication)
                #expect(report.durationByCategory == expected.durationByCategory)
                #expect(report.totalDuration == expected.totalDuration)
                #expect(report.pickups == expected.pickups)
                #expect(report.firstPickup == expected.firstPickup)
                #expect(report.longestSession == expected.longestSession)
            }
        }
        // The week as one range: each app's union over the week is the sum of its days' (to the millisecond each).
        let week = try #require(UsageReport(merging: second))
        let whole = try database.report(for: user, from: days[0].start, to: days[6].end)
        for (token, duration) in whole.durationByApplication {
            let difference = (week.durationByApplication[token] ?? .zero) - duration
            #expect(difference <= .milliseconds(7) && difference >= .milliseconds(-7))
        }
        #expect(week.pickups == whole.pickups)
        #expect(week.longestSession == whole.longestSession)
        let total = week.totalDuration - whole.totalDuration
        #expect(total <= .milliseconds(7) && total >= .milliseconds(-7))
    }

    /// Where several apps count at once (a session whose focus can't be read counts every running app) the total is
    /// the time any counted, each instant once, in a day's report, in its rollup and in a week's; the apps' times
    /// keep their own.
    @Test func theTotalCountsEachInstantOnceWhereSeveralAppsCountAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try UsageDatabase.open(at: directory.databasePath)
        var recorder = UsageRecorder(database: database, bootID: "boot")
        let session = SessionID("not-tracked")
        for (day, start) in [(0, days[0].start + 3600), (1, days[1].start + 7200)] {
            // An hour of three apps running together, then half an hour of one of them alone; the machine slept
            // half of a second hour in which the second app ran alone.
            for app in apps.prefix(3) {
                recorder.record(
                    UsageInterval(
                        user: user, session: session, use: app, start: start, end: start + 3600,
                        duration: .seconds(3600)))
            }
            recorder.record(
                UsageInterval(
                    user: user, session: session, use: apps[0], start: start + 3600, end: start + 5400,
                    duration: .seconds(1800)))
            recorder.record(
                UsageInterval(
                    user: user, session: SessionID("other-\(day)"), use: apps[1], start: start + 7200,
                    end: start + 10_800, duration: .seconds(1800)))
        }
        try recorder.flush()
        let now = days[2].end
        let live = try database.report(for: user, from: days[0].start, to: days[0].end)
        #expect(live.totalDuration == .seconds(7200))
        #expect(live.durationByApplication.values.reduce(.zero, +) == .seconds(14_400))
        let made = try database.report(for: user, days: Array(days.prefix(3)), now: now)
        let read = try database.report(for: user, days: Array(days.prefix(3)), now: now)
        #expect(try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyRollup") } == 3)
        for reports in [made, read] {
            #expect(reports.map(\.totalDuration) == [.seconds(7200), .seconds(7200), .zero])
            #expect(reports[1].durationByApplication[apps[0].application] == .seconds(5400))
            #expect(try #require(UsageReport(merging: reports)).totalDuration == .seconds(14_400))
        }
    }

    /// Rollups are a cache: a ledger that can't take them now (another writer holds it past the busy timeout, a
    /// full disk, a read-only file) is reported from its intervals all the same.
    @Test func aLedgerThatCannotTakeRollupsNowIsReportedFromItsIntervals() throws {
        let (database, directory) = try ledger()
        defer { directory.remove() }
        let raw = try days.map { try database.report(for: user, from: $0.start, to: $0.end) }
        let other = try UsageDatabase.open(at: directory.databasePath)
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? other.writer.write { db in
                try db.execute(
                    sql: "INSERT INTO settingsStore (name, json, updatedAtMilliseconds) VALUES ('x', '{}', 1)")
                holding.signal()
                Thread.sleep(forTimeInterval: 6)
            }
            released.signal()
        }
        holding.wait()
        let reports = try database.report(for: user, days: days, now: days[6].end)
        released.wait()
        #expect(reports.map(\.durationByApplication) == raw.map(\.durationByApplication))
        #expect(try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyRollup") } == 0)
    }

    @Test func aLateIntervalOutdatesItsDaysRollup() throws {
        let (database, directory) = try ledger()
        defer { directory.remove() }
        let now = days[6].end
        _ = try database.report(for: user, days: days, now: now)
        let late = AppUse(
            application: ApplicationToken(rawValue: "tok-late"), category: ActivityCategoryToken(rawValue: "cat-late"))
        var recorder = UsageRecorder(database: database, bootID: "boot-2")
        recorder.record(
            UsageInterval(
                user: user, session: SessionID("late"), use: late, start: days[2].start + 600,
                end: days[2].start + 1200,
                duration: .seconds(600)))
        try recorder.flush()
        let days = try database.writer.read {
            try Int64.fetchAll($0, sql: "SELECT dayEndMilliseconds FROM dailyRollup")
        }
        #expect(!days.contains(self.days[2].end.millisecondsSince1970))
        #expect(days.count == self.days.count - 1)
        let reports = try database.report(for: user, days: self.days, now: now)
        #expect(reports[2].durationByApplication[late.application] == .seconds(600))
    }

    @Test func theDayStillRunningIsReadLiveAndNotRolledUp() throws {
        let (database, directory) = try ledger()
        defer { directory.remove() }
        let now = days[6].start + 43_200
        let reports = try database.report(for: user, days: days, now: now)
        let live = try database.report(for: user, from: days[6].start, to: now)
        #expect(reports[6].durationByApplication == live.durationByApplication)
        #expect(reports[6].end == now)
        let rolled = try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyRollup") }
        #expect(rolled == days.count - 1)
    }

    @Test func closedDaysAreRolledUpAsTheyCloseFromTheFirstIntervalOn() throws {
        let (database, directory) = try ledger()
        defer { directory.remove() }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // During the last day: the six before it close.
        #expect(try database.rollUpClosedDays(before: days[6].start + 600, calendar: calendar) == 6)
        let ends = try database.writer.read {
            try Int64.fetchAll($0, sql: "SELECT dayEndMilliseconds FROM dailyRollup ORDER BY 1")
        }
        #expect(ends == days.prefix(6).map { $0.end.millisecondsSince1970 })
        // The next day: only the day that closed since is made (from the latest rollup on).
        #expect(try database.rollUpClosedDays(before: days[6].end + 600, calendar: calendar) == 2)
        let count = try database.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM dailyRollup") }
        #expect(count == 7)
        let raw = try database.report(for: user, from: days[6].start, to: days[6].end)
        let rolled = try database.report(for: user, days: [days[6]], now: days[6].end + 600)
        #expect(rolled.first?.durationByApplication == raw.durationByApplication)
    }
}

/// The time several intervals of one app cover, at the rate each counted (below one where the machine slept).
@Suite struct SpanUnionTests {
    /// Three overlapping spans at different rates: each stretch counts once, at the highest rate covering it
    /// (0–10 at 1, 10–15 at 0.5: 12.5 s). The one open stretch's split left a piece starting before it, and counted
    /// 14 s.
    @Test func overlappingSpansAtDifferentRatesCountEachStretchOnceAtTheHighestRate() {
        let spans = [
            Span(start: 0, end: 10_000, duration: 10_000), Span(start: 5_000, end: 15_000, duration: 5_000),
            Span(start: 6_000, end: 9_000, duration: 3_000),
        ]
        #expect(Span.union(spans, from: 0, to: 20_000) == .milliseconds(12_500))
        #expect(Span.union(spans, from: 8_000, to: 12_000) == .milliseconds(3_000))
    }

    @Test func spansApartAddUpAndAnInstantCountsItsDuration() {
        let spans = [
            Span(start: 0, end: 1_000, duration: 1_000), Span(start: 2_000, end: 4_000, duration: 1_000),
            Span(start: 5_000, end: 5_000, duration: 300),
        ]
        #expect(Span.union(spans, from: 0, to: 10_000) == .milliseconds(2_300))
    }
}
