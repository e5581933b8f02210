import ExampleSupport
import Foundation

// Barebones: a schedule that shields the picked apps and categories while its interval lasts, with the app's own
// shield text and buttons. The daemon runs this program as the monitor (--callback), the shield configuration
// (--shield-configuration) and the shield action (--shield-action) the desktop entry declares.
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

/// "Close App" closes the app; "OK" puts the shield back up, since the focus isn't over.
final class FocusButtons: ShieldActionDelegate {
    override func handle(
        action: ShieldAction, for application: ApplicationToken,
        completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
    ) {
        let response: ShieldActionResponse = action == .primaryButtonPressed ? .close : .defer
        app.record("shield action \(action): \(response)")
        completionHandler(response)
    }
}

if CommandLine.arguments.contains(where: { $0.hasPrefix("--callback") }) {
    await DeviceActivityMonitorMain.run(FocusMonitor())
}
if CommandLine.arguments.contains("--shield-configuration") {
    ShieldConfigurationExtensionMain.run(FocusShield())
}
if CommandLine.arguments.contains("--shield-action") {
    ShieldActionExtensionMain.run(FocusButtons())
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
