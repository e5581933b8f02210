import Foundation
import Glibc
import LinuxActivity
import Testing

@testable import ScreenTimeDaemon

@Suite("Desktop notifications over a real private session bus")
struct NotificationTests {
    @Test("Notify carries the exact summary, body, actions and hints; ActionInvoked and NotificationClosed come back")
    func shieldRoundTrip() async throws {
        let bus = try PrivateSessionBus()
        let server = try TestNotificationServer(address: bus.address)
        defer { server.stop() }
        let notifier = try DesktopNotifier(address: bus.address, applicationName: "Screen Time")
        let running = Task { try await notifier.run() }
        defer { running.cancel() }

        let shield = ShieldNotification(appName: "Minecraft", message: "You've reached your limit on Games.")
        let id = try notifier.notify(shield.notification)
        #expect(id == NotificationID(rawValue: 42))
        let notify = try #require(server.calls.first { $0.member == "Notify" })
        #expect(
            notify.arguments == [
                .string("Screen Time"), .uint32(0), .string("appointment-missed"), .string("Minecraft is shielded"),
                .string("You've reached your limit on Games."),
                .array(
                    elementSignature: "s",
                    [.string("close"), .string("Close App"), .string("extra-time"), .string("15 more minutes")]),
                .array(
                    elementSignature: "{sv}",
                    [
                        .dictionaryEntry(.string("category"), .variant(.string("x-screentime.shield"))),
                        .dictionaryEntry(.string("urgency"), .variant(.byte(2))),
                    ]),
                .int32(0),
            ])

        var events = notifier.events.makeAsyncIterator()
        try server.invokeAction(id: id.rawValue, key: "extra-time")
        let invoked = await events.next()
        #expect(invoked == .actionInvoked(id, actionKey: "extra-time"))
        #expect(
            invoked.flatMap { if case .actionInvoked(_, let key) = $0 { key } else { nil } }
                .flatMap(ShieldNotification.action(forKey:)) == .extraTime)

        try notifier.close(id)
        #expect(server.calls.last == .init(member: "CloseNotification", arguments: [.uint32(id.rawValue)]))
        try server.closed(id: id.rawValue, reason: 3)
        #expect(await events.next() == .closed(id, reason: .closedByCall))

        #expect(try notifier.capabilities() == ["actions", "body"])
        #expect(
            try notifier.serverInformation()
                == .init(name: "test-server", vendor: "screentime", version: "1.0", specificationVersion: "1.2"))
    }

    @Test("process() reports only signals from the server that answered, about notifications this client showed")
    func forgedSignalsIgnored() throws {
        let bus = try PrivateSessionBus()
        let server = try TestNotificationServer(address: bus.address)
        defer { server.stop() }
        let notifier = try DesktopNotifier(address: bus.address)
        let warning = LimitWarningNotification(subject: "Games", remaining: .seconds(300))
        let id = try notifier.notify(warning.notification)

        let forger = try Bus.connect(address: bus.address)
        try forger.emitSignal(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", member: "ActionInvoked",
            arguments: [.uint32(id.rawValue), .string("extra-time")])
        try server.invokeAction(id: id.rawValue + 100, key: "close")
        try server.invokeAction(id: id.rawValue, key: "default")
        let events = eventually { () -> [NotificationEvent]? in
            let events = (try? notifier.process()) ?? []
            return events.isEmpty ? nil : events
        }
        #expect(events == [.actionInvoked(id, actionKey: "default")])
    }

    @Test("dbus-monitor sees the Notify call cross the bus")
    func monitorCapturesNotify() throws {
        let bus = try PrivateSessionBus()
        let server = try TestNotificationServer(address: bus.address)
        defer { server.stop() }
        let directory = try ScratchDirectory()
        let capture = directory.path + "/monitor.txt"
        let monitor = try TestChild(
            "/usr/bin/dbus-monitor", ["--address", bus.address, "interface='org.freedesktop.Notifications'"],
            standardOutput: capture)
        defer { monitor.kill() }
        let notifier = try DesktopNotifier(address: bus.address)
        let warning = LimitWarningNotification(subject: "Games", remaining: .seconds(300))
        // The monitor needs a moment to register; send until it has seen one.
        let seen = try eventually { () -> String? in
            try notifier.notify(warning.notification)
            usleep(100_000)
            let text = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
            return text.contains("\"5 minutes left for Games\"") ? text : nil
        }
        let text = try #require(seen)
        #expect(text.contains("member=Notify"))
        #expect(text.contains("string \"x-screentime.warning\""))
    }

    @Test("without a notification server, Notify fails with a clear error")
    func noServer() throws {
        let bus = try PrivateSessionBus()
        let notifier = try DesktopNotifier(address: bus.address)
        #expect {
            try notifier.notify(DesktopNotification(summary: "nobody will see this"))
        } throws: { error in
            guard let error = error as? DaemonServiceError else { return false }
            return error.code == .notificationServerMissing && error.message.contains("org.freedesktop.Notifications")
        }
    }

    @Test("without a bus, connecting fails with the address in the error")
    func noBus() throws {
        let directory = try ScratchDirectory()
        #expect {
            try DesktopNotifier(address: "unix:path=\(directory.path)/no-bus")
        } throws: { error in
            guard let error = error as? DaemonServiceError else { return false }
            return error.code == .busUnavailable && error.message.contains("no-bus") && error.errno != nil
        }
    }

    @Test("the session bus address comes from the environment, else from /run/user/UID")
    func sessionBusAddress() {
        #expect(
            DesktopNotifier.sessionBusAddress(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/x"], userID: 5)
                == "unix:path=/tmp/x")
        #expect(DesktopNotifier.sessionBusAddress(environment: [:], userID: 1000) == "unix:path=/run/user/1000/bus")
    }

    @Test(
        "warnings say how much is left",
        arguments: [
            (Duration.seconds(300), "5 minutes left for Games"), (.seconds(60), "1 minute left for Games"),
            (.seconds(89), "1 minute left for Games"), (.seconds(90), "2 minutes left for Games"),
            (.seconds(30), "30 seconds left for Games"), (.seconds(1), "1 second left for Games"),
        ])
    func warningSummary(remaining: Duration, summary: String) {
        #expect(LimitWarningNotification(subject: "Games", remaining: remaining).summary == summary)
    }

    @Test("a shield without a secondary button offers only Close App; keys map to actions")
    func shieldActions() {
        let shield = ShieldNotification(appName: "Minecraft", message: "Limit reached", secondary: nil)
        #expect(shield.notification.actions == [.init(key: "close", label: "Close App")])
        #expect(ShieldNotification.action(forKey: "close") == .close)
        #expect(ShieldNotification.action(forKey: "extra-time") == .extraTime)
        #expect(ShieldNotification.action(forKey: "default") == nil)
    }
}
