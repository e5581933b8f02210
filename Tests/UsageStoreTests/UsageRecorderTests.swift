import Foundation
import GRDB
import ScreenTimeModel
import Testing
import UsageStore

@Suite struct UsageRecorderTests {
    let user = UserID(1000)
    let session = SessionID("3")
    let game = AppUse(
        application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat-games"))
    let editor = AppUse(
        application: ApplicationToken(rawValue: "tok-editor"),
        category: ActivityCategoryToken(rawValue: "cat-productivity"))
    let morning = Date(timeIntervalSince1970: 1_800_000_000)

    func interval(_ use: AppUse, start: Date, seconds: Int64) -> UsageInterval {
        UsageInterval(
            user: user, session: session, use: use, start: start, end: start + TimeInterval(seconds),
            duration: .seconds(seconds))
    }

    func intervalRows(_ database: UsageDatabase) throws -> [UsageIntervalRecord] {
        try database.writer.read { db in try UsageIntervalRecord.order(Column("id")).fetchAll(db) }
    }

    @Test func recordedUsageSurvivesReopeningTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let day = (morning - 3600, morning + 86_400)
        let before: UsageReport
        do {
            var recorder = UsageRecorder(database: try UsageDatabase.open(at: directory.databasePath), bootID: "boot-a")
            recorder.record(interval(game, start: morning, seconds: 600))
            recorder.record(interval(editor, start: morning + 700, seconds: 300))
            recorder.record(Pickup(user: user, session: session, application: game.application, time: morning))
            let summary = try recorder.flush()
            #expect(summary.intervalsInserted == 2 && summary.pickupsInserted == 1)
            before = try #require(recorder.database).report(for: user, from: day.0, to: day.1)
        }
        let reopened = try UsageDatabase.open(at: directory.databasePath)
        let after = try reopened.report(for: user, from: day.0, to: day.1)
        #expect(after == before)
        #expect(after.durationByApplication == [game.application: .seconds(600), editor.application: .seconds(300)])
        #expect(after.pickups == 1)
    }

    @Test func anIntervalExtendedOverTenFlushesIsOneRow() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot-a")
        for second in 1...10 {
            recorder.record(interval(game, start: morning, seconds: Int64(second)))
            try recorder.flush()
        }
        let rows = try intervalRows(database)
        #expect(rows.count == 1)
        #expect(rows.first?.durationMilliseconds == 10_000)
        #expect(rows.first?.endMilliseconds == rows.first!.startMilliseconds + 10_000)
    }

    @Test func aRestartedRecorderExtendsTheSameRowRatherThanAddingOne() throws {
        let database = try UsageDatabase.inMemory()
        var first = UsageRecorder(database: database, bootID: "boot-a")
        first.record(interval(game, start: morning, seconds: 5))
        try first.flush()
        var second = UsageRecorder(database: database, bootID: "boot-a")
        second.record(interval(game, start: morning, seconds: 9))
        let summary = try second.flush()
        #expect(summary.intervalsExtended == 1 && summary.intervalsInserted == 0)
        #expect(try intervalRows(database).map(\.durationMilliseconds) == [9_000])
    }

    @Test func aCrashLosesOnlyWhatWasNotFlushed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            var recorder = UsageRecorder(database: try UsageDatabase.open(at: directory.databasePath), bootID: "boot-a")
            for second in 1...30 {
                recorder.record(interval(game, start: morning, seconds: Int64(second)))
                recorder.record(interval(editor, start: morning + 3600, seconds: Int64(second)))
                if second <= 20 && second % 2 == 0 { try recorder.flush() }
            }
            #expect(recorder.pendingCount == 2)
            // The process ends here without flushing the last 10 s.
        }
        let reopened = try UsageDatabase.open(at: directory.databasePath)
        let report = try reopened.report(for: user, from: morning - 60, to: morning + 86_400)
        #expect(report.durationByApplication == [game.application: .seconds(20), editor.application: .seconds(20)])
        #expect(try intervalRows(reopened).count == 2)
    }

    @Test func aFailedFlushWritesNothingAndKeepsEverythingPending() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot-a")
        recorder.record(interval(game, start: morning, seconds: 10))
        // Ends before it starts: the schema's CHECK refuses it, and the whole transaction with it.
        recorder.record(
            UsageInterval(user: user, session: session, use: editor, start: morning, end: morning - 1, duration: .zero))
        #expect(throws: DatabaseError.self) { try recorder.flush() }
        #expect(recorder.pendingCount == 2)
        #expect(try intervalRows(database).isEmpty)
    }

    /// While the ledger can't be written, each flush extends every open shield: one row waits per shield, its latest
    /// extension, not one per second (a day of a read-only disk would fill the daemon's memory), and it is written.
    @Test func aShieldExtendedWhileTheLedgerIsUnwritableWaitsAsOneRow() throws {
        var recorder = UsageRecorder(database: nil, bootID: "boot-a")
        for second in 1...3600 {
            var records = DayRecords()
            records.shieldIntervals = [
                ShieldIntervalRecord(
                    user: user, kind: .application, token: "tok-game", start: morning,
                    end: morning + TimeInterval(second), duration: .seconds(second)),
                ShieldIntervalRecord(
                    user: user, kind: .category, token: "cat-games", start: morning,
                    end: morning + TimeInterval(second), duration: .seconds(second)),
            ]
            recorder.record(records)
        }
        #expect(recorder.pendingCount == 2)
        let database = try UsageDatabase.inMemory()
        recorder.attach(database)
        try recorder.flush()
        let rows = try database.writer.read { db in try ShieldIntervalRecord.fetchAll(db) }
        #expect(rows.map(\.durationMilliseconds) == [3_600_000, 3_600_000])
    }

    @Test func snapshotsAreSavedPerScopeAndReplaced() throws {
        let database = try UsageDatabase.inMemory()
        var recorder = UsageRecorder(database: database, bootID: "boot-a")
        #expect(try recorder.loadSnapshot(scope: "system") == nil)
        let first = EngineSnapshotRecord(scope: "system", version: 1, blob: Data("one".utf8), savedAt: morning)
        try recorder.saveSnapshot(first)
        #expect(try recorder.loadSnapshot(scope: "system") == first)

        recorder.record(interval(game, start: morning, seconds: 10))
        let second = EngineSnapshotRecord(scope: "system", version: 2, blob: Data("two".utf8), savedAt: morning + 10)
        let summary = try recorder.flush(snapshot: second)
        #expect(summary.savedSnapshot)
        #expect(try recorder.loadSnapshot(scope: "system") == second)
        #expect(try recorder.loadSnapshot(scope: "user-1000") == nil)
    }

    @Test func sessionIdsOfDifferentBootsAreDifferentSessions() throws {
        let database = try UsageDatabase.inMemory()
        var before = UsageRecorder(database: database, bootID: "boot-a")
        before.record(interval(game, start: morning, seconds: 10))
        try before.flush()
        var after = UsageRecorder(database: database, bootID: "boot-b")
        after.record(interval(game, start: morning + 86_400, seconds: 10))
        try after.flush()
        let sessions = try database.writer.read { db in try LoginSessionRecord.fetchAll(db) }
        #expect(sessions.map(\.sessionID) == ["3", "3"])
        #expect(Set(sessions.map(\.bootID)) == ["boot-a", "boot-b"])
    }

    @Test func flushTimeForATypicalTick() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var recorder = UsageRecorder(database: try UsageDatabase.open(at: directory.databasePath), bootID: "boot-a")
        let clock = ContinuousClock()
        var times: [Duration] = []
        for tick in 1...50 {
            // Four sessions with one app in front each, extended every tick, and a pickup now and then.
            for sessionNumber in 1...4 {
                recorder.record(
                    UsageInterval(
                        user: UserID(UInt32(1000 + sessionNumber)), session: SessionID("\(sessionNumber)"), use: game,
                        start: morning, end: morning + TimeInterval(tick), duration: .seconds(tick)))
            }
            if tick % 10 == 0 {
                recorder.record(Pickup(user: user, session: session, application: game.application, time: morning))
            }
            let started = clock.now
            try recorder.flush()
            times.append(started.duration(to: clock.now))
        }
        times.sort()
        print("flush of 4 open intervals (WAL file): median \(times[25]), max \(times[49])")
        #expect(try #require(recorder.database).writer.read { db in try UsageIntervalRecord.fetchCount(db) } == 4)
    }
}
