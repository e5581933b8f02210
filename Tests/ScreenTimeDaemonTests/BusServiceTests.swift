import DeviceActivity
import FamilyControls
import Foundation
import LinuxActivity
import ManagedSettings
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import Synchronization
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// The daemon's D-Bus API against a real private bus (`dbus-daemon`), a real daemon (its whole service group) and
/// real clients: `busctl` and the Swift modules. One at a time: each daemon's loop installs the process's SIGHUP
/// handler.
@Suite(.serialized) struct BusServiceTests {
    static let path = "/org/screentime/ScreenTime1"
    static let name = "org.screentime.ScreenTime1"

    @Test func introspectionListsEveryInterfaceMethodPropertyAndSignal() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let result = try CommandResult(
            "busctl --address='\(bus.address)' introspect \(Self.name) \(Self.path)", in: directory)
        #expect(result.status == 0, "\(result.output)")
        for interface in ScreenTimeBusName.Interface.allCases {
            #expect(result.output.contains(interface.rawValue + " "), "missing \(interface.rawValue)")
        }
        let members = [
            ".Status", ".Reload", ".Version", ".Mode", ".PolicyPath", ".PolicyError", ".ShieldedUsers",
            ".StoreMovedAside", ".RequestAuthorization", ".AuthorizationStatus", ".RevokeAuthorization",
            ".StartMonitoring", ".StopMonitoring", ".Activities", ".Activity", ".RemainingTime", ".Callback",
            ".Settings", ".SetSettings", ".ClearSetting", ".ClearAllSettings", ".Stores", ".ShieldChanged", ".Report",
            ".Segments", ".Applications", ".Application",
        ]
        for member in members { #expect(result.output.contains(member + " "), "missing \(member)") }
        let callback = result.output.split(separator: "\n").first { $0.hasPrefix(".Callback ") }
        #expect(callback?.split(separator: " ").filter { !$0.isEmpty }.prefix(3) == [".Callback", "signal", "ussss"])
        await running.stop()
    }

    @Test func busctlGetsTypedErrorsAndProperties() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let busctl = "busctl --address='\(bus.address)'"
        let unauthorized = try CommandResult(
            "\(busctl) call \(Self.name) \(Self.path) org.screentime.Activities1 StartMonitoring ss daily '{}'",
            in: directory)
        let child = try CommandResult(
            "\(busctl) call \(Self.name) \(Self.path) org.screentime.Authorization1 RequestAuthorization s child",
            in: directory)
        let approved = try CommandResult(
            "\(busctl) call \(Self.name) \(Self.path) org.screentime.Authorization1 RequestAuthorization s individual",
            in: directory)
        let malformed = try CommandResult(
            "\(busctl) call \(Self.name) \(Self.path) org.screentime.Activities1 StartMonitoring ss daily '{}'",
            in: directory)
        // The errors' D-Bus names, as any client sees them.
        let raw = try Bus.connect(address: bus.address)
        func errorName(_ interface: String, _ member: String, _ arguments: [BusValue]) -> String? {
            do {
                _ = try raw.call(
                    destination: Self.name, path: Self.path, interface: interface, member: member, arguments: arguments)
                return nil
            } catch {
                return error.remoteError?.name
            }
        }
        let childError = errorName("org.screentime.Authorization1", "RequestAuthorization", [.string("child")])
        let notYetAuthorized = errorName("org.screentime.Settings1", "Stores", [])
        _ = try raw.call(
            destination: Self.name, path: Self.path, interface: "org.screentime.Authorization1",
            member: "RequestAuthorization", arguments: [.string("individual")])
        let unknownActivity = errorName("org.screentime.Activities1", "Activity", [.string("nothing")])
        let mode = try CommandResult(
            "\(busctl) get-property \(Self.name) \(Self.path) org.screentime.Daemon1 Mode", in: directory)
        await running.stop()
        #expect(unauthorized.status != 0)
        #expect(unauthorized.output.contains("not authorized"), "\(unauthorized.output)")
        #expect(child.output.contains("guardian"), "\(child.output)")
        #expect(approved.output == "s \"approved\"\n", "\(approved.output)")
        #expect(malformed.output.contains("not valid JSON"), "\(malformed.output)")
        #expect(mode.output == "s \"individual\"\n", "\(mode.output)")
        #expect(childError == "org.screentime.Error.GuardianModeUnavailable")
        #expect(notYetAuthorized == "org.screentime.Error.NotAuthorized")
        #expect(unknownActivity == "org.screentime.Error.NoSuchActivity")
    }

    @Test func swiftClientsMonitorAndShieldThroughTheDaemon() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(
            address: bus.address, directory: directory.path,
            limits: ClientLimits(maximumActivities: 2, minimumIntervalLength: .seconds(15 * 60)))
        let connection = DaemonConnection(.address(bus.address))
        let authorization = AuthorizationCenter(connection: DaemonAuthorization(connection: connection))
        let center = DeviceActivityCenter(connection: DaemonDeviceActivity(connection: connection))
        let store = ManagedSettingsStore(
            named: .init("default"), connection: DaemonManagedSettings(connection: connection))

        let answered: Result<Void, any Error> = await withCheckedContinuation { continuation in
            authorization.requestAuthorization { continuation.resume(returning: $0) }
        }
        #expect((try? answered.get()) != nil)
        #expect(authorization.authorizationStatus == .approved)
        await #expect(throws: FamilyControlsError.restricted) {
            try await authorization.requestAuthorization(for: .child)
        }

        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true, warningTime: DateComponents(minute: 5))
        let event = DeviceActivityEvent(
            applications: [ApplicationToken(rawValue: "game")], threshold: DateComponents(minute: 30))
        try center.startMonitoring(.init("daily"), during: schedule, events: [.init("games"): event])
        #expect(center.activities == [.init("daily")])
        #expect(center.schedule(for: .init("daily")) == schedule)
        #expect(center.events(for: .init("daily")) == [.init("games"): event])

        let short = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 10, minute: 0), intervalEnd: DateComponents(hour: 10, minute: 1),
            repeats: true)
        #expect {
            try center.startMonitoring(.init("short"), during: short)
        } throws: { error in
            if case .intervalTooShort = error as? DeviceActivityCenter.MonitoringError { true } else { false }
        }
        try center.startMonitoring(.init("second"), during: schedule)
        #expect(throws: DeviceActivityCenter.MonitoringError.excessiveActivities(limit: 2)) {
            try center.startMonitoring(.init("third"), during: schedule)
        }

        store.shield.applications = [ApplicationToken(rawValue: "game")]
        #expect(store.shield.applications == [ApplicationToken(rawValue: "game")])
        // busctl is another app: it sees none of this app's stores.
        let busctl = "busctl --address='\(bus.address)' call \(Self.name) \(Self.path)"
        let theirs = try CommandResult(
            "\(busctl) org.screentime.Authorization1 RequestAuthorization s individual >/dev/null && "
                + "\(busctl) org.screentime.Settings1 Stores", in: directory)
        #expect(theirs.output == "as 0\n", "\(theirs.output)")

        let game = Application(bundleIdentifier: "org.example.Game", connection: connection)
        #expect(game.token != nil)
        #expect(game.token == Application(bundleIdentifier: "org.example.Game", connection: connection).token)
        #expect(game.token != Application(bundleIdentifier: "org.example.Other", connection: connection).token)
        #expect(game.localizedDisplayName?.isEmpty == false)

        center.stopMonitoring([.init("second")])
        #expect(center.activities == [.init("daily")])
        await running.stop()

        // A restart keeps the client's activities and stores.
        let restarted = try await RunningDaemon(address: bus.address, directory: directory.path)
        #expect(center.activities == [.init("daily")])
        #expect(center.events(for: .init("daily")) == [.init("games"): event])
        #expect(store.shield.applications == [ApplicationToken(rawValue: "game")])
        store.clearAllSettings()
        #expect(store.shield.applications == nil)
        await restarted.stop()
    }
}

extension BusServiceTests {
    @Test func anAppAndAUserHoldAtMostTheirLimitOfStoresOfBoundedSize() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(
            address: bus.address, directory: directory.path,
            limits: ClientLimits(
                maximumStores: 2, maximumJSONBytes: 200, maximumStoresPerUser: 3, maximumAppsPerUser: 2))
        // Other apps of the same user: busctl copied under another name is a client of its own.
        try FileManager.default.copyItem(atPath: "/usr/bin/busctl", toPath: directory.path + "/otherapp")
        try FileManager.default.copyItem(atPath: "/usr/bin/busctl", toPath: directory.path + "/thirdapp")
        let settings = #"{"applications":["game"]}"#
        func set(_ store: String, _ json: String = settings, by program: String = "busctl") throws -> CommandResult {
            let busctl = "\(program) --address='\(bus.address)' call \(Self.name) \(Self.path)"
            return try CommandResult(
                "\(busctl) org.screentime.Authorization1 RequestAuthorization s individual >/dev/null && "
                    + "\(busctl) org.screentime.Settings1 SetSettings ss \(store) '\(json)' 2>&1", in: directory)
        }
        let first = try set("a")
        let second = try set("b")
        let again = try set("b")
        let third = try set("c")
        let large = try set("a", #"{"applications":["\#(String(repeating: "g", count: 300))"]}"#)
        let other = try set("x", by: directory.path + "/otherapp")
        let beyondUser = try set("y", by: directory.path + "/otherapp")
        let thirdApp = try CommandResult(
            "\(directory.path)/thirdapp --address='\(bus.address)' call \(Self.name) \(Self.path) "
                + "org.screentime.Authorization1 RequestAuthorization s individual 2>&1", in: directory)
        await running.stop()
        #expect(first.status == 0 && second.status == 0 && again.status == 0, "\(first.output)\(second.output)")
        #expect(third.status != 0 && third.output.contains("at most 2 settings stores"), "\(third.output)")
        #expect(large.status != 0 && large.output.contains("at most 200 bytes"), "\(large.output)")
        #expect(other.status == 0, "\(other.output)")
        #expect(
            beyondUser.status != 0 && beyondUser.output.contains("your apps hold 3 settings stores"),
            "\(beyondUser.output)")
        #expect(
            thirdApp.status != 0 && thirdApp.output.contains("the authorizations of 2 of your apps"),
            "\(thirdApp.output)")
    }

    @Test func aCallMadeWhileTheLedgerIsStillOpeningWaitsForItInsteadOfBeingRefused() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        // The ledger locked by another process (a backup, a report being read) as the daemon starts: its first
        // opening waits for the lock, while the daemon is already on the bus.
        let ledger = directory.path + "/usage.sqlite"
        let holder = try TestChild(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("CREATE TABLE kept(x)")
                db.execute("BEGIN EXCLUSIVE")
                print("locked", flush=True)
                time.sleep(3)
                db.execute("COMMIT")
                """,
                ledger,
            ], standardOutput: directory.path + "/holder.out")
        defer { holder.kill() }
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? String(contentsOfFile: directory.path + "/holder.out", encoding: .utf8)) != "locked\n",
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(10))
        }
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let opened = running.daemon.storeWriter.health.isOpen
        let busctl = "busctl --address='\(bus.address)' call \(Self.name) \(Self.path)"
        let authorized = try CommandResult(
            "\(busctl) org.screentime.Authorization1 RequestAuthorization s individual", in: directory)
        await running.stop()
        #expect(!opened, "the ledger was open before the call: the lock did not hold it")
        #expect(authorized.status == 0 && authorized.output.contains("approved"), "\(authorized.output)")
    }

    @Test func callbacksAndShieldChangesAreSignalled() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let listener = try Bus.connect(address: bus.address)
        let received = Mutex<[String]>([])
        try listener.addMatch("type='signal',sender='\(Self.name)',path='\(Self.path)'") { message in
            let arguments = message.readAll().map { $0.stringValue ?? "\($0)" }
            received.withLock { $0.append(([message.member ?? ""] + arguments).joined(separator: " ")) }
        }
        let connection = DaemonConnection(.address(bus.address))
        try await AuthorizationCenter(connection: DaemonAuthorization(connection: connection))
            .requestAuthorization(for: .individual)
        let center = DeviceActivityCenter(connection: DaemonDeviceActivity(connection: connection))
        let store = ManagedSettingsStore(
            named: .init("default"), connection: DaemonManagedSettings(connection: connection))
        // From the start of the last hour to the end of the next: in progress now, also around midnight.
        let hour = Calendar.current.component(.hour, from: Date())
        let schedule = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: (hour + 23) % 24, minute: 0),
            intervalEnd: DateComponents(hour: (hour + 1) % 24, minute: 59), repeats: true)
        try center.startMonitoring(.init("allDay"), during: schedule)
        store.shield.applications = [ApplicationToken(rawValue: "game")]

        let deadline = ContinuousClock.now + .seconds(30)
        func seen() -> [String] { received.withLock { $0 } }
        while ContinuousClock.now < deadline,
            !(seen().contains { $0.hasPrefix("ShieldChanged") } && seen().contains { $0.hasPrefix("Callback") })
        {
            try listener.processPending()
            try await Task.sleep(for: .milliseconds(20))
        }
        await running.stop()
        let callback = seen().first { $0.hasPrefix("Callback") }
        #expect(callback?.hasSuffix(" intervalDidStart allDay ") == true, "\(seen())")
        #expect(seen().contains { $0.hasPrefix("ShieldChanged") && $0.contains("game") }, "\(seen())")
    }
}

/// Calls any local user can make that the daemon must refuse, saying why, and outlive: they once crashed it (for good,
/// when what crashed it was kept), grew it without bound or held its loop.
extension BusServiceTests {
    /// An activity JSON whose warning time is the longest `Duration` there is (nanoseconds overflow 64 bits).
    static func endlessWarningActivity() throws -> String {
        let schedule = ActivitySchedule(
            intervalStart: CalendarPattern(hour: 0, minute: 0), intervalEnd: CalendarPattern(hour: 23, minute: 59),
            repeats: true, warningTime: Duration(secondsComponent: .max, attosecondsComponent: 0))
        return try BusJSON.encode(["registration": ActivityRegistration(name: "endless", schedule: schedule)])
    }

    @Test func hostileArgumentsAreRefusedAndTheDaemonGoesOn() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(
            address: bus.address, directory: directory.path, limits: ClientLimits(maximumJSONBytes: 2_000))
        let busctl = "busctl --address='\(bus.address)' call \(Self.name) \(Self.path)"
        func call(_ arguments: String) throws -> CommandResult {
            try CommandResult(
                "\(busctl) org.screentime.Authorization1 RequestAuthorization s individual >/dev/null && "
                    + "\(busctl) \(arguments) 2>&1", in: directory)
        }
        let endless = try call(
            "org.screentime.Activities1 StartMonitoring ss endless '\(Self.endlessWarningActivity())'")
        let padding = String(repeating: "x", count: 2_000)
        let large = try call("org.screentime.Activities1 StartMonitoring ss large '{\"pad\":\"\(padding)\"}'")
        let farReport = try call("org.screentime.Usage1 Report xx 0 9223372036854775807")
        let negative = try call("org.screentime.Usage1 Report xx -- -9223372036854775808 0")
        let twoYears = 2 * 365 * 86_400_000
        let hourly = try call("org.screentime.Usage1 Segments sxx hourly 0 \(twoYears)")
        let daily = try call("org.screentime.Usage1 Segments sxx daily 0 \(twoYears)")
        let status = try CommandResult("\(busctl) org.screentime.Daemon1 Status 2>&1", in: directory)
        let monitored = running.daemon.runtime.engine.activities
        await running.stop()
        #expect(
            endless.status != 0 && endless.output.contains("warningTime must be at most 366 days"), "\(endless.output)")
        #expect(large.status != 0 && large.output.contains("at most 2000 bytes"), "\(large.output)")
        #expect(farReport.status != 0 && farReport.output.contains("is not a time"), "\(farReport.output)")
        #expect(negative.status != 0 && negative.output.contains("is not a time"), "\(negative.output)")
        #expect(hourly.status != 0 && hourly.output.contains("at most 1000 segments"), "\(hourly.output)")
        #expect(daily.status == 0, "\(daily.output)")
        #expect(status.status == 0, "\(status.output)")
        #expect(monitored.isEmpty)
    }

    @Test func anActivityKeptThatTheEngineRefusesIsNotMonitoredAtTheNextStart() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        // What a version that checked less kept: the daemon trapped on it at every start.
        let database = try UsageDatabase.open(at: directory.path + "/usage.sqlite")
        try database.saveClientValue(
            ClientValueRecord(
                user: UserID(getuid()), client: AppID("busctl"), kind: .activity, name: "endless",
                json: try Self.endlessWarningActivity(), updatedAt: Date()))
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let status = try CommandResult(
            "busctl --address='\(bus.address)' call \(Self.name) \(Self.path) org.screentime.Daemon1 Status 2>&1",
            in: directory)
        let monitored = running.daemon.runtime.engine.activities
        await running.stop()
        #expect(status.status == 0, "\(status.output)")
        #expect(monitored.isEmpty)
    }

    @Test func aReportOfMoreSegmentsThanOneCallHoldsIsAskedForInParts() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        let connection = DaemonConnection(.address(bus.address))
        try await Self.authorize(connection)
        // 1,200 hours: two calls of at most 1,000 segments.
        let end = try #require(Calendar.current.dateInterval(of: .hour, for: Date())).start
        let interval = DateInterval(start: end - 1_200 * 3_600, end: end)
        let results = DeviceActivityResults<DeviceActivityData>(
            filter: DeviceActivityFilter(segment: .hourly(during: interval)), connection: connection)
        let segments = try results.elements().first?.activitySegments.elements() ?? []
        await running.stop()
        #expect(segments.count == 1_200)
        #expect(segments.first?.dateInterval.start == interval.start)
        #expect(segments.last?.dateInterval.end == interval.end)
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.dateInterval.end == $1.dateInterval.start })
    }

    /// Asks for authorization as an app does.
    static func authorize(_ connection: DaemonConnection) async throws {
        try await AuthorizationCenter(connection: DaemonAuthorization(connection: connection))
            .requestAuthorization(for: .individual)
    }

    @Test func anActivityThatDoesNotRepeatIsForgottenOnceItsIntervalEndsAlsoWhileTheDaemonIsAway() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let limits = ClientLimits(minimumIntervalLength: .seconds(1))
        let running = try await RunningDaemon(address: bus.address, directory: directory.path, limits: limits)
        let connection = DaemonConnection(.address(bus.address))
        try await Self.authorize(connection)
        let center = DeviceActivityCenter(connection: DaemonDeviceActivity(connection: connection))
        let start = Date()
        func once(from: TimeInterval, to: TimeInterval) -> DeviceActivitySchedule {
            let parts: Set<Calendar.Component> = [.hour, .minute, .second]
            return DeviceActivitySchedule(
                intervalStart: Calendar.current.dateComponents(parts, from: start + from),
                intervalEnd: Calendar.current.dateComponents(parts, from: start + to), repeats: false)
        }
        try center.startMonitoring(.init("now"), during: once(from: 1, to: 3))
        try center.startMonitoring(.init("later"), during: once(from: 6, to: 8))
        let daily = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true)
        try center.startMonitoring(.init("daily"), during: daily)
        #expect(Set(center.activities) == [.init("now"), .init("later"), .init("daily")])
        // Its interval over, the first is no longer listed nor monitored.
        let listed = eventually(timeout: .seconds(10)) {
            let activities = Set(center.activities)
            return activities.contains(.init("now")) ? nil : activities
        }
        #expect(listed == [.init("later"), .init("daily")])
        await running.stop()
        #expect(!running.daemon.runtime.engine.activities.contains { $0.rawValue.hasSuffix("/now") })
        // The second's interval passes while the daemon is away: the next start forgets it too.
        let away = start.addingTimeInterval(9).timeIntervalSinceNow
        if away > 0 { try await Task.sleep(for: .seconds(away)) }
        let restarted = try await RunningDaemon(address: bus.address, directory: directory.path, limits: limits)
        let relisted = eventually(timeout: .seconds(10)) {
            let activities = Set(center.activities)
            return activities.isEmpty ? nil : activities
        }
        await restarted.stop()
        #expect(relisted == [.init("daily")])
        #expect(!restarted.daemon.runtime.engine.activities.contains { $0.rawValue.hasSuffix("/later") })
    }

    @Test func monitoringRefusalsSayWhyAndStoppingAllStopsEveryActivityOfTheApp() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let connection = DaemonConnection(.address(bus.address))
        let center = DeviceActivityCenter(connection: DaemonDeviceActivity(connection: connection))
        let daily = DeviceActivitySchedule(
            intervalStart: DateComponents(hour: 0, minute: 0), intervalEnd: DateComponents(hour: 23, minute: 59),
            repeats: true)
        // No daemon: unavailable, which asking for authorization doesn't mend.
        #expect {
            try center.startMonitoring(.init("daily"), during: daily)
        } throws: { error in
            (error as? ScreenTimeBusError)?.code == .unavailable
        }
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        // Not authorized yet (asked again while the daemon's ledger opens, as `.failed` says).
        var refusal: (any Error)?
        for _ in 0..<300 {
            do {
                try center.startMonitoring(.init("daily"), during: daily)
                refusal = nil
            } catch {
                refusal = error
            }
            guard (refusal as? ScreenTimeBusError)?.code == .failed else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(refusal as? DeviceActivityCenter.MonitoringError == .unauthorized, "\(String(describing: refusal))")
        try await Self.authorize(connection)
        try center.startMonitoring(.init("daily"), during: daily)
        // An activity another client of the app started with JSON of its own: not listed, but stopped with all.
        let registration = ActivityRegistration(
            name: "raw",
            schedule: ActivitySchedule(
                intervalStart: CalendarPattern(hour: 0, minute: 0), intervalEnd: CalendarPattern(hour: 23, minute: 59),
                repeats: true))
        _ = try connection.call(
            .activities, "StartMonitoring",
            [.string("raw"), .string(try BusJSON.encode(["registration": registration]))])
        let names = { () throws -> [String] in
            guard case .array(_, let names)? = try connection.call(.activities, "Activities").first else { return [] }
            return names.compactMap(\.stringValue).sorted()
        }
        #expect(try names() == ["daily", "raw"])
        #expect(center.activities == [.init("daily")])
        center.stopMonitoring()
        #expect(try names() == [])
        await running.stop()
        #expect(running.daemon.runtime.engine.activities.isEmpty)
    }

    @Test func settingsMadeFromAStoreThatCouldNotBeReadAreNotWritten() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let connection = DaemonConnection(.address(bus.address))
        let settings = DaemonManagedSettings(connection: connection)
        let store = ManagedSettingsStore(named: .init("focus"), connection: settings)
        let game = ApplicationToken(rawValue: "game")
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        try await Self.authorize(connection)
        store.shield.applications = [game]
        // No real app or category: this daemon enforces on this machine.
        let category = ActivityCategoryToken(rawValue: "none")
        store.shield.applicationCategories = .specific([category])
        await running.stop()
        // Read while the daemon is away: nothing to read, so an app's change is made to empty settings.
        var changed = store.shield
        #expect(changed == ShieldSettings())
        let restarted = try await RunningDaemon(address: bus.address, directory: directory.path)
        try await Self.authorize(connection)
        changed.webDomains = []
        store.shield = changed
        #expect(settings.lastError?.code == .failed, "\(String(describing: settings.lastError))")
        // Read again, the store is as it was, and a change is written.
        #expect(store.shield.applications == [game])
        store.shield.applications = []
        let kept = store.shield
        await restarted.stop()
        #expect(kept.applications == [] && kept.applicationCategories == .specific([category]))
    }

    @Test func anAppListsItsStoresAndDeletesThemToMakeRoomForOthers() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let connection = DaemonConnection(.address(bus.address))
        let settings = DaemonManagedSettings(connection: connection)
        let running = try await RunningDaemon(
            address: bus.address, directory: directory.path,
            limits: ClientLimits(
                maximumStores: 2, maximumJSONBytes: 1000, maximumStoresPerUser: 10, maximumAppsPerUser: 2))
        try await Self.authorize(connection)
        let game = ApplicationToken(rawValue: "game")
        func store(_ name: String) -> ManagedSettingsStore {
            ManagedSettingsStore(named: .init(name), connection: settings)
        }
        store("focus").shield.applications = [game]
        store("sleep").shield.applications = [game]
        let both = ManagedSettingsStore.stores(in: settings)
        store("homework").shield.applications = [game]
        let refused = settings.lastError
        store("focus").deleteStore()
        store("homework").shield.applications = [game]
        let afterDeleting = ManagedSettingsStore.stores(in: settings)
        ManagedSettingsStore.deleteStores([.init("sleep"), .init("homework"), .init("never")], in: settings)
        let afterDeletingAll = ManagedSettingsStore.stores(in: settings)
        await running.stop()
        #expect(both == [.init("focus"), .init("sleep")])
        #expect(refused?.message.contains("at most 2 settings stores") == true, "\(String(describing: refused))")
        #expect(afterDeleting == [.init("sleep"), .init("homework")])
        #expect(afterDeletingAll.isEmpty)
        #expect(running.daemon.clients.stores.values.allSatisfy { $0.isEmpty })
    }

    @Test func twoProcessesSettingTwoSettingsOfOneStoreLoseNeither() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let running = try await RunningDaemon(address: bus.address, directory: directory.path)
        // The app and its extension: two connections, as two processes have.
        let appConnection = DaemonConnection(.address(bus.address))
        let extensionConnection = DaemonConnection(.address(bus.address))
        try await Self.authorize(appConnection)
        let app = ManagedSettingsStore(
            named: .init("focus"), connection: DaemonManagedSettings(connection: appConnection))
        let other = ManagedSettingsStore(
            named: .init("focus"), connection: DaemonManagedSettings(connection: extensionConnection))
        let game = ApplicationToken(rawValue: "game")
        let category = ActivityCategoryToken(rawValue: "none")
        let blocked = ApplicationToken(rawValue: "blocked")
        // While the app changes one setting, the extension sets another: between the app's reading of the store and
        // its writing.
        app.shield.settingApplications([game]) { other.shield.applicationCategories = .specific([category]) }
        app.application.blockedApplications = [Application(token: blocked)]
        let settings = app.shield
        await running.stop()
        #expect(settings.applications == [game])
        #expect(settings.applicationCategories == .specific([category]))
        #expect(settings.blockedApplications == [blocked])
    }

    @Test func aGuardiansDaemonServesOnlyTheUsersItLimits() async throws {
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        // A default policy of no limit covers nobody.
        try "".write(toFile: directory.path + "/default.toml", atomically: true, encoding: .utf8)
        let running = try await RunningDaemon(address: bus.address, directory: directory.path, system: true)
        let individual = try CommandResult(
            "busctl --address='\(bus.address)' call \(Self.name) \(Self.path) org.screentime.Authorization1 "
                + "RequestAuthorization s individual 2>&1", in: directory)
        await running.stop()
        #expect(
            individual.status != 0 && individual.output.contains("not a user this daemon limits"),
            "\(individual.output)")
    }
}

extension ShieldSettings {
    /// Sets `applications` after running `meanwhile`, as a slow caller would.
    mutating func settingApplications(_ tokens: Set<ApplicationToken>, meanwhile: () -> Void) {
        meanwhile()
        applications = tokens
    }
}
