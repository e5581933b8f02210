import DeviceActivity
import FamilyControls
import Foundation
import ManagedSettings
import ScreenTimeEngine
import ScreenTimeModel
import Testing

// Code as Apple's documentation writes it.
extension DeviceActivityName {
    static let daily = Self("daily")
}

extension DeviceActivityEvent.Name {
    static let encouraged = Self("encouraged")
}

extension ManagedSettingsStore.Name {
    static let gaming = Self("gaming")
}

final class RecordingMonitor: DeviceActivityMonitor {
    var calls: [String] = []
    override func intervalDidStart(for activity: DeviceActivityName) { calls.append("start \(activity)") }
    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        calls.append("threshold \(event) \(activity)")
    }
}

/// The public modules keep Apple's names and shapes, so documentation code ports unchanged.
@Suite struct PublicAPITests {
    let selection = FamilyActivitySelection(
        applicationTokens: [ApplicationToken(rawValue: "game")],
        categoryTokens: [ActivityCategoryToken(rawValue: "games")])

    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
        repeats: true, warningTime: DateComponents(minute: 5))

    func connection(at instant: Date) -> InProcessDeviceActivity {
        let now = Now(monotonic: MonotonicInstant(nanoseconds: 1_000_000_000), wallClock: WallClockInstant(instant))
        return InProcessDeviceActivity(engine: ActivityEngine(timeZone: TimeZone(identifier: "UTC")!), clock: { now })
    }

    @Test func monitoringStartsAndStopsThroughTheCenter() throws {
        let noon = Date(timeIntervalSince1970: 1_749_038_400)  // 2025-06-04T12:00:00Z
        let connection = connection(at: noon)
        let center = DeviceActivityCenter(connection: connection)
        let event = DeviceActivityEvent(
            applications: selection.applicationTokens, categories: selection.categoryTokens,
            threshold: DateComponents(hour: 1, minute: 30))
        try center.startMonitoring(.daily, during: schedule, events: [.encouraged: event])
        #expect(center.activities == [.daily])
        #expect(center.schedule(for: .daily) == schedule)
        #expect(center.events(for: .daily) == [.encouraged: event])

        let monitor = RecordingMonitor()
        for action in connection.takeActions() { monitor.receive(action) }
        #expect(monitor.calls == ["start daily"])
        let remaining = connection.withEngine { $0.usage(of: .encouraged, in: .daily, for: UserID(1000))?.remaining }
        #expect(remaining == .seconds(5_400))

        center.stopMonitoring()
        #expect(center.activities.isEmpty)
        #expect(connection.takeActions().contains(.intervalDidEnd(.daily)))
    }

    @Test func refusalsAreTheCasesAppleNames() {
        let center = DeviceActivityCenter(connection: connection(at: Date(timeIntervalSince1970: 1_749_038_400)))
        let tooShort = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 9), intervalEnd: DateComponents(hour: 9, minute: 5), repeats: true)
        do {
            try center.startMonitoring(.daily, during: tooShort)
            Issue.record("a 5-minute interval was accepted")
        } catch DeviceActivityCenter.MonitoringError.intervalTooShort {
            // Apple's case, matched without its payload.
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(
            throws: DeviceActivityCenter.MonitoringError.invalidDateComponents(
                reason: "intervalStart: weekOfYear is not supported in a schedule")
        ) {
            try center.startMonitoring(
                .daily,
                during: DeviceActivitySchedule(
                    intervalStart: DateComponents(weekOfYear: 3), intervalEnd: DateComponents(hour: 1), repeats: true))
        }
        #expect(
            throws: DeviceActivityCenter.MonitoringError.invalidDateComponents(
                reason: "threshold: month cannot express a span of time")
        ) {
            try center.startMonitoring(
                .daily, during: schedule,
                events: [.encouraged: DeviceActivityEvent(threshold: DateComponents(month: 1))])
        }
        #expect(center.activities.isEmpty)
    }

    @Test func aSchedulesNextIntervalIsTheOneInForceOrNext() throws {
        let utc = TimeZone(identifier: "UTC")!
        let noon = Date(timeIntervalSince1970: 1_749_038_400)
        let interval = try #require(schedule.nextInterval(at: noon, in: utc))
        #expect(interval.start == Date(timeIntervalSince1970: 1_748_995_200))
        #expect(interval.duration == 23 * 3_600 + 59 * 60)
        #expect(schedule.nextInterval != nil)
    }

    @Test func storesShieldWhatTheyAreGivenUntilCleared() {
        let settings = InProcessManagedSettings()
        let store = ManagedSettingsStore(named: .gaming, connection: settings)
        store.shield.applications = selection.applicationTokens
        store.shield.applicationCategories = .specific(selection.categoryTokens)
        store.shield.webDomainCategories = .all()
        #expect(store.shield.applications == selection.applicationTokens)
        #expect(store.shield.applicationCategories == .specific(selection.categoryTokens, except: []))
        #expect(settings.allSettings.keys.sorted() == [.gaming])
        store.clearAllSettings()
        #expect(store.shield == ShieldSettings())
        #expect(settings.allSettings.isEmpty)
        #expect(ManagedSettingsStore().name == .default)
    }

    @Test func storesAreListedAndDeletedByName() {
        let settings = InProcessManagedSettings()
        for name in ["gaming", "social", "focus"] {
            ManagedSettingsStore(named: .init(name), connection: settings).shield.applications =
                selection.applicationTokens
        }
        ManagedSettingsStore(named: .init("empty"), connection: settings).shield.applications = []
        #expect(ManagedSettingsStore.stores(in: settings) == [.gaming, .social, .init("focus")])
        ManagedSettingsStore(named: .gaming, connection: settings).deleteStore()
        #expect(ManagedSettingsStore.stores(in: settings) == [.social, .init("focus")])
        ManagedSettingsStore.deleteStores([.social, .init("never")], in: settings)
        #expect(ManagedSettingsStore.stores(in: settings) == [.init("focus")])
    }

    @Test func selectionsAndShieldTypesAreCodable() throws {
        let data = try JSONEncoder().encode(selection)
        #expect(try JSONDecoder().decode(FamilyActivitySelection.self, from: data) == selection)
        #expect(ShieldActionResponse.allCases == [.close, .defer, .none])
        let configuration = ShieldConfiguration(
            icon: "org.example.Game", title: .init(text: "Time's up"), primaryButtonLabel: .init(text: "Close"))
        #expect(
            try JSONDecoder().decode(ShieldConfiguration.self, from: JSONEncoder().encode(configuration))
                == configuration)
        #expect(AuthorizationStatus.approved.description == "approved")
    }
}
