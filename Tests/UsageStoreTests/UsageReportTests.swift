import Foundation
import ScreenTimeModel
import Testing
import UsageStore

@Suite struct UsageReportTests {
    let child = UserID(1001)
    let parent = UserID(1000)
    let game = AppUse(
        application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat-games"))
    let kart = AppUse(
        application: ApplicationToken(rawValue: "tok-kart"), category: ActivityCategoryToken(rawValue: "cat-games"))
    let editor = AppUse(
        application: ApplicationToken(rawValue: "tok-editor"),
        category: ActivityCategoryToken(rawValue: "cat-productivity"))
    /// A day in UTC: the report takes any wall-time range; the daemon passes local midnights.
    let dayStart = Date(timeIntervalSince1970: 1_800_057_600)
    var dayEnd: Date { dayStart + 86_400 }

    func record(_ recorder: inout UsageRecorder, _ user: UserID, _ use: AppUse, at offset: TimeInterval, seconds: Int64)
    {
        recorder.record(
            UsageInterval(
                user: user, session: SessionID("s\(user)"), use: use, start: dayStart + offset,
                end: dayStart + offset + TimeInterval(seconds), duration: .seconds(seconds)))
    }

    @Test func totalsPerAppAndCategoryPickupsAndLongestSessionPerUser() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot")
        record(&recorder, child, game, at: 3600, seconds: 1200)
        record(&recorder, child, kart, at: 7200, seconds: 600)
        record(&recorder, child, game, at: 9000, seconds: 300)
        record(&recorder, child, editor, at: 10_000, seconds: 900)
        record(&recorder, parent, editor, at: 3600, seconds: 5000)
        for offset in [3600.0, 7200, 9000] {
            recorder.record(
                Pickup(
                    user: child, session: SessionID("s\(child)"), application: game.application, time: dayStart + offset
                ))
        }
        recorder.record(
            Pickup(user: parent, session: SessionID("s\(parent)"), application: editor.application, time: dayStart + 60)
        )
        try recorder.flush()

        let report = try database.report(for: child, from: dayStart, to: dayEnd)
        #expect(
            report.durationByApplication == [
                game.application: .seconds(1500), kart.application: .seconds(600), editor.application: .seconds(900),
            ])
        #expect(report.durationByCategory == [game.category: .seconds(2100), editor.category: .seconds(900)])
        #expect(report.totalDuration == .seconds(3000))
        #expect(report.pickups == 3)
        #expect(report.firstPickup == dayStart + 3600)
        #expect(report.longestSession?.use == game)
        #expect(report.longestSession?.duration == .seconds(1200))
        #expect(report.longestSession?.start == dayStart + 3600)

        let parentReport = try database.report(for: parent, from: dayStart, to: dayEnd)
        #expect(parentReport.durationByApplication == [editor.application: .seconds(5000)])
        #expect(parentReport.firstPickup == dayStart + 60)
    }

    @Test func anIntervalAcrossMidnightCountsInEachDayInProportion() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot")
        // 23:30 to 00:30, one hour of use.
        record(&recorder, child, game, at: 86_400 - 1800, seconds: 3600)
        try recorder.flush()
        let first = try database.report(for: child, from: dayStart, to: dayEnd)
        let second = try database.report(for: child, from: dayEnd, to: dayEnd + 86_400)
        #expect(first.durationByApplication == [game.application: .seconds(1800)])
        #expect(second.durationByApplication == [game.application: .seconds(1800)])
        #expect(try database.report(for: child, from: dayStart - 86_400, to: dayStart).durationByApplication.isEmpty)
    }

    @Test func anEmptyRangeReportsNothing() throws {
        let database = try UsageDatabase.inMemory()
        let report = try database.report(for: child, from: dayStart, to: dayEnd)
        #expect(report.totalDuration == .zero)
        #expect(report.pickups == 0)
        #expect(report.firstPickup == nil)
        #expect(report.longestSession == nil)
    }

    @Test func oneAppInTwoSessionsAtOnceCountsOnce() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot")
        // 10:00–10:20 in one session, 10:10–10:30 in another: 30 minutes of the game, not 40.
        for (session, offset) in [("seat0", 36_000.0), ("ssh", 36_600.0)] {
            recorder.record(
                UsageInterval(
                    user: child, session: SessionID(session), use: game, start: dayStart + offset,
                    end: dayStart + offset + 1200, duration: .seconds(1200)))
        }
        // Half of a span slept through (monotonic time 600 s of a 1200 s wall span) counts half.
        recorder.record(
            UsageInterval(
                user: child, session: SessionID("seat0"), use: kart, start: dayStart + 50_000, end: dayStart + 51_200,
                duration: .seconds(600)))
        try recorder.flush()
        let report = try database.report(for: child, from: dayStart, to: dayEnd)
        #expect(report.durationByApplication[game.application] == .seconds(1800))
        #expect(report.durationByApplication[kart.application] == .seconds(600))
        #expect(report.durationByCategory[game.category] == .seconds(2400))
    }
}
