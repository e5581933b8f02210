import ExampleSupport
import Foundation

// Barebones: a schedule that shields the picked apps and categories while its interval lasts, with the app's own
// shield text. The daemon runs this program as the monitor (--callback) and as the shield configuration
// (--shield-configuration) the desktop entry declares.
//
//   barebones start --selection FILE [--in SECONDS] [--for SECONDS]

extension DeviceActivityName { static let focus = Self("focus") }

let app = ExampleApp(name: "barebones")

final class FocusMonitor: DeviceActivityMonitor {
    override func intervalDidStart(for activity: DeviceActivityName) {
        let selection = app.selection()
        let store = ManagedSettingsStore()
        store.shield.applications = selection.applicationTokens
        store.shield.applicationCategories = .specific(selection.categoryTokens)
        app.record("interval started: shielding \(selection.applicationTokens.count) apps")
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        ManagedSettingsStore().clearAllSettings()
        app.record("interval ended: shields cleared")
    }
}

final class FocusShield: ShieldConfigurationDataSource {
    override func configuration(shielding application: ApplicationToken) -> ShieldConfiguration {
        ShieldConfiguration(
            title: .init(text: "Barebones: focus time"), subtitle: .init(text: "This app rests until the focus ends."),
            secondaryButtonLabel: .init(text: "OK"))
    }
}

if CommandLine.arguments.contains(where: { $0.hasPrefix("--callback") }) {
    await DeviceActivityMonitorMain.run(FocusMonitor())
}
if CommandLine.arguments.contains("--shield-configuration") {
    ShieldConfigurationExtensionMain.run(FocusShield())
}
switch CommandLine.arguments.dropFirst().first {
case "start":
    await app.authorize()
    _ = app.selection()
    app.startMonitoring(
        .focus, during: ExampleApp.schedule(startingIn: app.seconds("in", default: 60), lasting: app.seconds("for", default: 3600)))
    print("focus scheduled")
default:
    ExampleApp.fail("usage: barebones start --selection FILE [--in SECONDS] [--for SECONDS]")
}
