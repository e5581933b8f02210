import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// What the runtime records for reports as the day happens, written through the store writer's batches into a real
/// SQLite file and read back as reports read it.
@Suite struct DayRecordsTests {
    typealias Harness = DaemonRuntimeTests.Harness

    /// Writes every batch of `actions` into a fresh ledger file, as the store writer does.
    func ledger(of actions: [DaemonRuntime.Action], in directory: ScratchDirectory) throws -> UsageDatabase {
        let database = try UsageDatabase.open(at: directory.path + "/usage.sqlite")
        var recorder = UsageRecorder(database: database, bootID: "boot")
        for batch in DaemonRuntimeTests.writes(actions) {
            for interval in batch.intervals { recorder.record(interval) }
            for pickup in batch.pickups { recorder.record(pickup) }
            for grant in batch.grants { recorder.record(grant) }
            recorder.record(batch.records)
            try recorder.flush()
        }
        return database
    }

    func day(of harness: Harness) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = harness.now.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: harness.now.date)
    }

    @Test func warningsShieldsTimeShieldedAndTodaysLimitsReachTheStore() throws {
        let directory = try ScratchDirectory()
        var harness = Harness()
        let start = harness.now.date
        var actions = harness.handle(.restarted(nil))
        actions += try harness.load()
        actions += harness.use(DaemonRuntimeTests.game, for: 21)
        #expect(harness.shielded(DaemonRuntimeTests.game))
        let shieldedAt = harness.now.date
        actions += harness.use(DaemonRuntimeTests.game, for: 30)
        actions.append(harness.runtime.flush(at: harness.now))
        let database = try ledger(of: actions, in: directory)

        let notifications = try database.notifications(
            for: DaemonRuntimeTests.user, from: start, to: harness.now.date + 1)
        #expect(notifications.map(\.kind) == [.warning, .shield])
        #expect(notifications.allSatisfy { $0.limit == "games" })
        #expect(notifications.last?.title == "Time limit reached: games")

        let shielded = try database.shieldedTime(for: DaemonRuntimeTests.user, from: start, to: harness.now.date + 1)
        let game = ShieldedTime.Target(kind: .application, token: DaemonRuntimeTests.game.application.rawValue)
        let expected = Duration.seconds(harness.now.date.timeIntervalSince(shieldedAt))
        #expect(
            shielded.byTarget[game].map { $0 - expected <= .seconds(1) && expected - $0 <= .seconds(1) } == true,
            "\(shielded)")
        #expect(shielded.total == shielded.byTarget[game])

        let policy = try Policy.parse(DaemonRuntimeTests.policyText, file: "test.toml")
        let recordedDay = day(of: harness)
        let limits = try database.dailyLimits(for: DaemonRuntimeTests.user, from: recordedDay, through: recordedDay)
        #expect(
            limits.map { "\($0.limit)=\($0.seconds)" }
                == policy.limits.map { "\($0.name)=\($0.daily.components.seconds)" }.sorted())
    }

    @Test func aShieldLiftedByExtraTimeClosesItsIntervalAndTheGrantIsKept() throws {
        let directory = try ScratchDirectory()
        var harness = Harness()
        let start = harness.now.date
        var actions = harness.handle(.restarted(nil))
        actions += try harness.load()
        actions += harness.use(DaemonRuntimeTests.game, for: 21)
        actions += harness.use(nil, for: 10)
        actions += harness.handle(
            .answered(NotificationAnswer(user: DaemonRuntimeTests.user, subject: .limit("games"), choice: .extraTime)))
        #expect(!harness.shielded(DaemonRuntimeTests.game))
        actions += harness.use(nil, for: 20)
        actions.append(harness.runtime.flush(at: harness.now))
        let database = try ledger(of: actions, in: directory)
        let shielded = try database.shieldedTime(for: DaemonRuntimeTests.user, from: start, to: harness.now.date + 1)
        // Shielded from the limit to the grant, about 10 s; nothing in the 20 s after it.
        #expect(shielded.total >= .seconds(9) && shielded.total <= .seconds(12), "\(shielded)")
        let grants = try database.grants(for: DaemonRuntimeTests.user, from: start, to: harness.now.date + 1)
        #expect(grants.map(\.seconds) == [15 * 60])
    }

    @Test func aLimitByWeekdayRecordsTodaysFigureAndADayItDoesNotNameRecordsNone() throws {
        let directory = try ScratchDirectory()
        var harness = Harness()
        let weekday = Calendar.current.dateComponents(in: harness.now.timeZone!, from: harness.now.date).weekday!
        let today = Policy.Weekday(rawValue: weekday)!
        let other = Policy.Weekday(rawValue: weekday % 7 + 1)!
        var actions = harness.handle(.restarted(nil))
        actions += try harness.load(
            """
            [[limit]]
            name = "games"
            apps = ["org.example.Game"]
            daily = { \(today.abbreviation) = "20m", \(other.abbreviation) = "3h" }
            [[limit]]
            name = "video"
            apps = ["vlc"]
            daily = { \(other.abbreviation) = "1h" }
            """)
        actions += harness.use(DaemonRuntimeTests.calculator, for: 2)
        let database = try ledger(of: actions, in: directory)
        let recordedDay = day(of: harness)
        let limits = try database.dailyLimits(for: DaemonRuntimeTests.user, from: recordedDay, through: recordedDay)
        #expect(limits.map(\.limit) == ["games"])
        #expect(limits.map(\.seconds) == [20 * 60])
    }

    @Test func eachDaysLimitsAreRecordedOnceThatDay() throws {
        let directory = try ScratchDirectory()
        var harness = Harness()
        let firstDay = day(of: harness)
        var actions = harness.handle(.restarted(nil))
        actions += try harness.load()
        actions += harness.use(DaemonRuntimeTests.calculator, for: 5)
        harness.advance(86_400)
        let secondDay = day(of: harness)
        actions += harness.use(DaemonRuntimeTests.calculator, for: 5)
        let written = DaemonRuntimeTests.writes(actions).flatMap(\.records.dailyLimits)
        // Two limits a day, each written once a day however many flushes.
        #expect(written.map(\.day) == [firstDay, firstDay, secondDay, secondDay])
        let database = try ledger(of: actions, in: directory)
        #expect(try database.dailyLimits(for: DaemonRuntimeTests.user, from: firstDay, through: secondDay).count == 4)
    }

    @Test func appsSeenAreLabelledOnceAndAgainWhenTheirNameChanges() throws {
        let directory = try ScratchDirectory()
        var harness = Harness()
        let game = DaemonRuntimeTests.game
        func label(_ name: String) -> AppLabelRecord {
            AppLabelRecord(
                token: game.application, appID: AppID("org.example.Game"), name: name, category: .games,
                categoryToken: game.category, updatedAt: harness.now.date)
        }
        var actions = harness.handle(.restarted(nil))
        actions += harness.handle(.appsSeen([label("Game")]))
        actions += harness.use(game, for: 2)
        actions += harness.handle(.appsSeen([label("Game")]))
        actions += harness.use(game, for: 2)
        let written = DaemonRuntimeTests.writes(actions).flatMap(\.records.appLabels)
        #expect(written.map(\.name) == ["Game"])
        actions += harness.handle(.appsSeen([label("Game <Deluxe> & more")]))
        actions.append(harness.runtime.flush(at: harness.now))
        let database = try ledger(of: actions, in: directory)
        let labels = try database.appLabels()
        #expect(labels[game.application]?.name == "Game <Deluxe> & more")
        #expect(labels[game.application]?.activityCategory == .games)
        #expect(labels[game.application]?.categoryToken == game.category.rawValue)
    }
}
