import DeviceActivity
import FamilyControls
import Foundation
import ManagedSettings
import Testing

// Non-UI code as Apple's Screen Time documentation and sample projects write it, unchanged apart from what the
// platform lacks (no SwiftUI picker, no extension points): it must compile against the public modules alone.

extension DeviceActivityName {
    static let evening = Self("evening")
}

extension DeviceActivityEvent.Name {
    static let discouraged = Self("discouraged")
}

extension ManagedSettingsStore.Name {
    static let social = Self("social")
}

let sampleSchedule = DeviceActivitySchedule(
    intervalStart: DateComponents(hour: 0, minute: 0),
    intervalEnd: DateComponents(hour: 23, minute: 59),
    repeats: true,
    warningTime: DateComponents(minute: 5)
)

final class SampleMonitor: DeviceActivityMonitor {
    // `ManagedSettingsStore(named: .social)` in an app: the daemon's store. Here the same store kept in process.
    let store = ManagedSettingsStore(named: .social, connection: InProcessManagedSettings.shared)
    let selection = FamilyActivitySelection(
        applicationTokens: [ApplicationToken(rawValue: "chat")],
        categoryTokens: [ActivityCategoryToken(rawValue: "social")])

    override func intervalDidStart(for activity: DeviceActivityName) {
        super.intervalDidStart(for: activity)
        store.shield.applications = selection.applicationTokens.isEmpty ? nil : selection.applicationTokens
        store.shield.applicationCategories = ShieldSettings.ActivityCategoryPolicy.specific(
            selection.categoryTokens, except: Set())
        store.shield.webDomainCategories = .all()
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        super.intervalDidEnd(for: activity)
        store.clearAllSettings()
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventDidReachThreshold(event, activity: activity)
        store.shield.applicationCategories = .all(except: selection.applicationTokens)
    }

    override func intervalWillStartWarning(for activity: DeviceActivityName) {
        super.intervalWillStartWarning(for: activity)
    }

    override func intervalWillEndWarning(for activity: DeviceActivityName) {
        super.intervalWillEndWarning(for: activity)
    }

    override func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        super.eventWillReachThresholdWarning(event, activity: activity)
    }
}

final class SampleShieldActionExtension: ShieldActionDelegate {
    override func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping (ShieldActionResponse) -> Void
    ) {
        switch action {
        case .primaryButtonPressed: completionHandler(.close)
        case .secondaryButtonPressed: completionHandler(.defer)
        }
    }
}

final class SampleShieldConfigurationExtension: ShieldConfigurationDataSource {
    override func configuration(shielding application: ApplicationToken) -> ShieldConfiguration {
        ShieldConfiguration(
            title: ShieldConfiguration.Label(text: "No more chatting today"),
            subtitle: ShieldConfiguration.Label(text: "You reached your limit"),
            primaryButtonLabel: ShieldConfiguration.Label(text: "OK"),
            secondaryButtonLabel: ShieldConfiguration.Label(text: "Ask for more time"))
    }
}

@Suite struct AppleSampleCodeTests {
    @Test func sampleCodeBuildsTheValuesItDescribes() throws {
        var selection = FamilyActivitySelection()
        selection.applicationTokens.insert(ApplicationToken(rawValue: "chat"))
        let event = DeviceActivityEvent(
            applications: selection.applicationTokens,
            categories: selection.categoryTokens,
            webDomains: selection.webDomainTokens,
            threshold: DateComponents(minute: 15),
            includesPastActivity: true
        )
        let events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [.discouraged: event]
        #expect(events[.discouraged]?.threshold == DateComponents(minute: 15))
        #expect(sampleSchedule.warningTime == DateComponents(minute: 5))
        #expect(try sampleSchedule.activitySchedule().repeats)
        let status: AuthorizationStatus = .approved
        #expect(status != .denied)

        let monitor = SampleMonitor()
        monitor.intervalDidStart(for: .evening)
        #expect(monitor.store.shield.applications == selection.applicationTokens)
        monitor.intervalDidEnd(for: .evening)
        #expect(monitor.store.shield == ShieldSettings())

        let response = ResponseBox()
        SampleShieldActionExtension().handle(action: .secondaryButtonPressed, for: ApplicationToken(rawValue: "chat")) {
            response.set($0)
        }
        #expect(response.value == .defer)
        #expect(
            SampleShieldConfigurationExtension().configuration(shielding: ApplicationToken(rawValue: "chat")).title?
                .text == "No more chatting today")
    }
}

/// Receives a shield action's answer in the test.
final class ResponseBox: @unchecked Sendable {
    // Only touched on the test's thread: the delegate answers synchronously.
    var value: ShieldActionResponse?
    func set(_ response: ShieldActionResponse) { value = response }
}
