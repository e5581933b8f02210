import ExampleSupport
import Foundation

// Homework (WWDC21, "Meet the Screen Time API"): the picked apps are shielded once they have been used for a daily
// threshold, by the app's monitor extension, which the daemon runs (this same program, with --callback).
//
//   homework start --selection FILE [--threshold SECONDS] [--warning SECONDS]
//   homework status     activities, events, what the store shields and blocks
//   homework block      blocks the picked apps outright (store.application.blockedApplications)
//   homework clear      clears the store: the apps run again

extension DeviceActivityName { static let daily = Self("daily") }
extension DeviceActivityEvent.Name { static let homework = Self("homework") }
extension ManagedSettingsStore.Name { static let homework = Self("homework") }

let app = ExampleApp(name: "homework")

final class HomeworkMonitor: DeviceActivityMonitor {
    override func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        app.record("warning \(event.rawValue)")
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        let store = ManagedSettingsStore(named: .homework)
        store.shield.applications = app.selection().applicationTokens
        app.record("threshold \(event.rawValue): shielded \(store.shield.applications?.count ?? 0) apps")
    }
}

if CommandLine.arguments.contains(where: { $0.hasPrefix("--callback") }) {
    await DeviceActivityMonitorMain.run(HomeworkMonitor())
}
switch CommandLine.arguments.dropFirst().first {
case "start":
    await app.authorize()
    let selection = app.selection()
    let event = DeviceActivityEvent(
        applications: selection.applicationTokens, categories: selection.categoryTokens,
        threshold: DateComponents(second: app.seconds("threshold", default: 3600)))
    let schedule = DeviceActivitySchedule(
        intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
        repeats: true, warningTime: DateComponents(second: app.seconds("warning", default: 300)))
    app.startMonitoring(.daily, during: schedule, events: [.homework: event])
    print("monitoring \(DeviceActivityName.daily.rawValue)")
case "authorize":
    // `authorize --child`: as a guardian's child, of the guardian's daemon when the user runs none of their own.
    if CommandLine.arguments.contains("--child") { await app.authorizeAsChild() } else { await app.authorize() }
    print("authorized: \(AuthorizationCenter.shared.authorizationStatus)")
case "status":
    let center = DeviceActivityCenter()
    for activity in center.activities {
        let events = center.events(for: activity)
        let thresholds = events.map { "\($0.key.rawValue) after \($0.value.threshold.second ?? 0) s" }
        print("activity \(activity.rawValue): \(thresholds.sorted().joined(separator: ", "))")
    }
    let store = ManagedSettingsStore(named: .homework)
    print("shielded \(store.shield.applications?.count ?? 0)")
    print("blocked \(store.application.blockedApplications?.count ?? 0)")
case "block":
    let store = ManagedSettingsStore(named: .homework)
    store.application.blockedApplications = Set(app.selection().applicationTokens.map(Application.init(token:)))
    print("blocked \(store.application.blockedApplications?.count ?? 0)")
case "clear":
    ManagedSettingsStore(named: .homework).clearAllSettings()
    print("cleared")
default:
    ExampleApp.fail(
        "usage: homework start|status|block|clear|authorize [--selection FILE] [--threshold S] [--warning S] [--child]")
}
