import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// The D-Bus clients' activities and settings stores: validated with the clients' limits, run by the engine under
/// client-prefixed names, kept in the usage store so they outlive the client, the daemon and a reboot.
extension Daemon {
    /// Answers a request of an authorized client.
    func respondToClient(_ request: BusRequest, from client: BusClient, at now: Now) throws(ScreenTimeBusError)
        -> BusAnswer
    {
        switch request {
        case .startMonitoring(let name, let json):
            try startMonitoring(name, json: json, for: client, at: now)
        case .stopMonitoring(let names):
            try stopMonitoring(
                names.isEmpty ? Array(clients.activities[client, default: [:]].keys) : names, for: client, at: now)
        case .activities:
            return .texts(clients.activities[client, default: [:]].keys.sorted())
        case .activity(let name):
            return .text(try activity(name, of: client).json)
        case .remainingTime(let name, let event):
            _ = try activity(name, of: client)
            guard
                let usage = runtime.engine.usage(
                    of: ActivityEventName(event), in: client.engineName(ofActivity: name), for: client.user)
            else { throw ScreenTimeBusError(.invalidArgument, "activity \(name) has no event \(event)") }
            return .seconds(
                used: UInt64(max(0, usage.used.components.seconds)),
                remaining: UInt64(max(0, usage.remaining.components.seconds)))
        case .settings(let store):
            return .text(
                try clients.stores[client]?[store].map { settings throws(ScreenTimeBusError) in
                    try BusJSON.encode(settings)
                } ?? "")
        case .setSettings(let store, let json):
            let settings = json.isEmpty ? nil : try BusJSON.decode(ShieldSettings.self, from: json)
            try setSettings(settings, of: store, for: client, at: now)
        case .setSetting(let store, let key, let json):
            var settings = clients.stores[client]?[store] ?? ShieldSettings()
            try settings.setSetting(key, json: json)
            try setSettings(settings, of: store, for: client, at: now)
        case .clearSetting(let store, let key):
            var settings = clients.stores[client]?[store] ?? ShieldSettings()
            try settings.setSetting(key, json: "")
            try setSettings(settings, of: store, for: client, at: now)
        case .clearAllSettings:
            for store in clients.stores[client, default: [:]].keys {
                try setSettings(nil, of: store, for: client, at: now)
            }
        case .stores:
            return .texts(clients.stores[client, default: [:]].keys.sorted())
        case .report(let from, let to):
            return .text(try BusJSON.encode(try summary(for: client.user, from: from, to: to)))
        case .segments(let segment, let from, let to):
            var summaries: [UsageSummary] = []
            for interval in try Self.segments(segment, from: from, to: to) {
                summaries.append(try summary(for: client.user, from: interval.start, to: interval.end))
            }
            return .text(try BusJSON.encode(summaries))
        default:
            throw ScreenTimeBusError(.invalidArgument, "\(request) is not a client's request")
        }
        return .nothing
    }

    private func activity(_ name: String, of client: BusClient) throws(ScreenTimeBusError) -> ClientRegistry.Activity {
        guard let activity = clients.activities[client]?[name] else {
            throw ScreenTimeBusError(.noSuchActivity, "\(client) monitors no activity named \"\(name)\"")
        }
        return activity
    }

    /// The part of an activity's JSON the daemon reads: the engine's registration (the rest is the client's).
    private struct ActivityEnvelope: Decodable {
        var registration: ActivityRegistration
    }

    private func startMonitoring(_ name: String, json: String, for client: BusClient, at now: Now)
        throws(ScreenTimeBusError)
    {
        guard !name.isEmpty else { throw ScreenTimeBusError(.invalidArgument, "an activity's name is empty") }
        let limits = settings.clientLimits
        guard json.utf8.count <= limits.maximumJSONBytes else {
            throw ScreenTimeBusError(
                .invalidArgument, "an activity may take at most \(limits.maximumJSONBytes) bytes as JSON")
        }
        let registration = try clientRegistration(name, json: json, of: client, at: now)
        let existing = clients.activities[client, default: [:]]
        if existing[name] == nil, existing.count >= limits.maximumActivities {
            throw ScreenTimeBusError(.excessiveActivities(limit: limits.maximumActivities))
        }
        if existing[name] == nil, Self.count(clients.activities, of: client) >= limits.maximumActivitiesPerUser {
            throw ScreenTimeBusError(
                .invalidArgument,
                "your apps monitor \(limits.maximumActivitiesPerUser) activities, the most one user may; stop one first"
            )
        }
        try persist(.activity, name: name, json: json, of: client, at: now)
        clients.activities[client, default: [:]][name] = ClientRegistry.Activity(registration: registration, json: json)
        perform(runtime.handle(.engine(.startMonitoring(registration)), at: now))
    }

    /// The registration a client's activity JSON holds, under its engine name and for its user alone, checked by
    /// the engine's own validation with the clients' limits: the same code path whatever the limits are.
    private func clientRegistration(_ name: String, json: String, of client: BusClient, at now: Now)
        throws(ScreenTimeBusError) -> ActivityRegistration
    {
        var registration = try BusJSON.decode(ActivityEnvelope.self, from: json).registration
        registration.name = client.engineName(ofActivity: name)
        registration.users = [client.user]
        var configuration = EngineConfiguration.appleDefaults
        configuration.maximumActivities = nil
        configuration.minimumIntervalLength = settings.clientLimits.minimumIntervalLength
        do throws(MonitoringError) {
            try ActivityEngine(configuration: configuration, timeZone: runtime.engine.timeZone).validate(
                registration, at: now)
        } catch {
            throw ScreenTimeBusError(error)
        }
        return registration
    }

    private func stopMonitoring(_ names: [String], for client: BusClient, at now: Now) throws(ScreenTimeBusError) {
        let known = names.filter { clients.activities[client]?[$0] != nil }
        guard !known.isEmpty else { return }
        do {
            try ledger {
                try $0.deleteClientValues(user: client.user, client: client.app, kind: .activity, names: known)
            }
        } catch {
            throw ScreenTimeBusError(.failed, "cannot write the usage store: \(error)")
        }
        for name in known { clients.activities[client]?[name] = nil }
        perform(runtime.handle(.engine(.stopMonitoring(known.map(client.engineName(ofActivity:)))), at: now))
    }

    /// Forgets a client's activity whose schedule doesn't repeat once its interval has ended, as the engine does (an
    /// `intervalDidEnd` after which it holds the activity no more): as Apple's, it is no longer listed, no longer
    /// counts against the app's limit, and a restart doesn't monitor it again.
    func forgetFinishedClientActivity(_ action: ActivityEngine.Action) {
        guard case .intervalDidEnd(let name) = action, runtime.engine.registration(of: name) == nil,
            let (client, activity) = BusClient.parse(name), clients.activities[client]?[activity] != nil
        else { return }
        forgetFinished(activity, of: client)
    }

    /// Forgets `client`'s finished `activity`, here and in the ledger; when the ledger can't be written, the next
    /// start forgets it (`restoreClients`: its one interval has ended).
    private func forgetFinished(_ activity: String, of client: BusClient) {
        clients.activities[client]?[activity] = nil
        do {
            try ledger {
                try $0.deleteClientValues(user: client.user, client: client.app, kind: .activity, names: [activity])
            }
        } catch {
            logger.warning(
                "cannot forget a finished activity in the usage store",
                metadata: ["client": "\(client)", "activity": "\(activity)", "error": "\(error)"])
        }
    }

    /// Whether an activity registered at `registered` (milliseconds since 1970) whose schedule doesn't repeat is over
    /// at `now`: its one interval (the one in progress or next when it was registered) has ended.
    private func hasFinished(_ registration: ActivityRegistration, registeredAt registered: Int64, at now: Now) -> Bool
    {
        guard !registration.schedule.repeats else { return false }
        let instant = WallClockInstant(nanosecondsSince1970: registered &* 1_000_000)
        guard
            let interval = registration.schedule.currentOrNextInterval(at: instant, in: runtime.engine.timeZone)
        else { return true }
        return interval.end <= now.wallClock
    }

    private func setSettings(_ settings: ShieldSettings?, of store: String, for client: BusClient, at now: Now)
        throws(ScreenTimeBusError)
    {
        guard !store.isEmpty else { throw ScreenTimeBusError(.invalidArgument, "a store's name is empty") }
        let kept = settings.flatMap { $0.isEmpty ? nil : $0 }
        if let kept {
            let limits = self.settings.clientLimits
            let held = clients.stores[client] ?? [:]
            if held[store] == nil, held.count >= limits.maximumStores {
                throw ScreenTimeBusError(
                    .invalidArgument, "an app may hold at most \(limits.maximumStores) settings stores; clear one first"
                )
            }
            if held[store] == nil, Self.count(clients.stores, of: client) >= limits.maximumStoresPerUser {
                throw ScreenTimeBusError(
                    .invalidArgument,
                    "your apps hold \(limits.maximumStoresPerUser) settings stores, the most one user may; clear one first"
                )
            }
            let json = try BusJSON.encode(kept)
            guard json.utf8.count <= limits.maximumJSONBytes else {
                throw ScreenTimeBusError(
                    .invalidArgument, "a store's settings may take at most \(limits.maximumJSONBytes) bytes as JSON")
            }
            try persist(.settingsStore, name: store, json: json, of: client, at: now)
        } else {
            do {
                try ledger {
                    try $0.deleteClientValues(
                        user: client.user, client: client.app, kind: .settingsStore, names: [store])
                }
            } catch {
                throw ScreenTimeBusError(.failed, "cannot write the usage store: \(error)")
            }
        }
        let before = clients.stores[client]?[store]?.applications ?? []
        clients.stores[client, default: [:]][store] = kept
        for application in (kept?.applications ?? []).subtracting(before).sorted(by: { $0.rawValue < $1.rawValue }) {
            showClientShield(of: client, over: application, store: store)
        }
        let name = client.engineName(ofStore: store)
        perform(runtime.handle(.engine(.settingsStoreChanged(user: client.user, store: name, settings: kept)), at: now))
    }

    /// How many of `values` (activities or stores, by client) the apps of `client`'s user hold together.
    static func count<Value>(_ values: [BusClient: [String: Value]], of client: BusClient) -> Int {
        values.reduce(0) { $0 + ($1.key.user == client.user ? $1.value.count : 0) }
    }

    func persist(_ kind: ClientValueRecord.Kind, name: String, json: String, of client: BusClient, at now: Now)
        throws(ScreenTimeBusError)
    {
        let record = ClientValueRecord(
            user: client.user, client: client.app, kind: kind, name: name, json: json,
            updatedAt: Self.date(now.wallClock))
        do { try ledger { try $0.saveClientValue(record) } } catch {
            throw ScreenTimeBusError(.failed, "cannot write the usage store: \(error)")
        }
    }

    /// Reads the clients' authorizations, activities and stores back from the usage store and hands the engine what
    /// its snapshot doesn't already hold; at start-up.
    /// Reads the clients' records once the ledger is open (the store writer opens it after the start); until then the
    /// engine's snapshot already holds what the clients registered.
    func restoreClients(at now: Now) {
        let records: [ClientValueRecord]
        do {
            guard let read = try storeWriter.withDatabase({ try $0.clientValues() }) else { return }
            records = read
        } catch {
            logger.error("cannot read the clients' activities and stores", metadata: ["error": "\(error)"])
            clientsRestored = true
            return
        }
        clientsRestored = true
        for record in records {
            let client = BusClient(user: record.user, app: record.clientID)
            switch record.kind {
            case .authorization:
                clients.authorizations[client] = record.json
            case .activity:
                let registration: ActivityRegistration
                do throws(ScreenTimeBusError) {
                    registration = try clientRegistration(record.name, json: record.json, of: client, at: now)
                } catch {
                    // Kept by a version that checked less, or no longer valid (a schedule with no interval left):
                    // not monitored, and left for the client to stop or replace.
                    logger.warning(
                        "a client's activity is not monitored",
                        metadata: [
                            "client": "\(client)", "activity": "\(record.name)", "error": "\(error.wireMessage)",
                        ])
                    continue
                }
                if runtime.engine.registration(of: registration.name) == nil,
                    hasFinished(registration, registeredAt: record.updatedAtMilliseconds, at: now)
                {
                    // Its one interval ended while the daemon was away (or the engine dropped it without a callback,
                    // the interval jumped over): over, as it would have been here.
                    forgetFinished(record.name, of: client)
                    continue
                }
                clients.activities[client, default: [:]][record.name] = ClientRegistry.Activity(
                    registration: registration, json: record.json)
                if runtime.engine.registration(of: registration.name) != registration {
                    perform(runtime.handle(.engine(.startMonitoring(registration)), at: now))
                }
            case .settingsStore:
                guard let settings = try? BusJSON.decode(ShieldSettings.self, from: record.json) else { continue }
                clients.stores[client, default: [:]][record.name] = settings
                let store = client.engineName(ofStore: record.name)
                if runtime.engine.settings(of: store, for: client.user) != settings {
                    perform(
                        runtime.handle(
                            .engine(.settingsStoreChanged(user: client.user, store: store, settings: settings)), at: now
                        ))
                }
            }
        }
    }

    /// Runs `body` with the ledger; throws when it is not open (yet, or no longer: a store fault).
    private func ledger<Result: Sendable>(_ body: (UsageDatabase) throws -> Result) throws -> Result {
        guard let result = try storeWriter.withDatabase(body) else {
            throw UsageStoreUnavailable()
        }
        return result
    }

    // MARK: - Usage

    private func summary(for user: UserID, from start: Date, to end: Date) throws(ScreenTimeBusError) -> UsageSummary {
        guard start < end else { throw ScreenTimeBusError(.invalidArgument, "a report's start must be before its end") }
        let report: UsageReport
        let details: (categories: [ApplicationToken: ActivityCategoryToken], pickups: [ApplicationToken: Int])
        let notifications: [ApplicationToken: Int]
        let labels: [ApplicationToken: AppLabelRecord]
        do {
            (report, details, notifications, labels) = try ledger {
                (
                    try $0.report(for: user, from: start, to: end),
                    try $0.applicationDetails(for: user, from: start, to: end),
                    try $0.appNotificationCounts(for: user, from: start, to: end), try $0.appLabels()
                )
            }
        } catch {
            throw ScreenTimeBusError(.failed, "cannot read the usage store: \(error)")
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        return UsageSummary(
            start: start, end: end, totalSeconds: seconds(report.totalDuration),
            applicationSeconds: Dictionary(
                uniqueKeysWithValues: report.durationByApplication.map { ($0.key.rawValue, seconds($0.value)) }),
            categorySeconds: Dictionary(
                uniqueKeysWithValues: report.durationByCategory.map { ($0.key.rawValue, seconds($0.value)) }),
            pickups: report.pickups, firstPickup: report.firstPickup,
            longestActivity: report.longestSession.map {
                UsageSummary.LongestActivity(
                    application: $0.use.application, category: $0.use.category, start: $0.start, end: $0.end)
            },
            applicationCategories: Dictionary(
                uniqueKeysWithValues: details.categories.map { ($0.key.rawValue, $0.value.rawValue) }),
            applicationPickups: Dictionary(uniqueKeysWithValues: details.pickups.map { ($0.key.rawValue, $0.value) }),
            applicationNotifications: Dictionary(
                uniqueKeysWithValues: notifications.map { ($0.key.rawValue, $0.value) }),
            applicationLabels: Dictionary(
                uniqueKeysWithValues: report.durationByApplication.keys.compactMap { token in
                    labels[token].map {
                        (
                            token.rawValue,
                            UsageSummary.ApplicationLabel(id: $0.appID, name: $0.name, category: $0.category)
                        )
                    }
                }))
    }

    /// The hours, days or weeks (local time) that cover `from..<to`, each clipped to it.
    static func segments(_ segment: String, from: Date, to: Date) throws(ScreenTimeBusError) -> [DateInterval] {
        let calendar = Calendar.current
        let component: Calendar.Component
        switch segment {
        case "hourly": component = .hour
        case "daily": component = .day
        case "weekly": component = .weekOfYear
        default:
            throw ScreenTimeBusError(.invalidArgument, "unknown segment \"\(segment)\": use hourly, daily or weekly")
        }
        guard from < to, var start = calendar.dateInterval(of: component, for: from)?.start else {
            throw ScreenTimeBusError(.invalidArgument, "a report's start must be before its end")
        }
        var intervals: [DateInterval] = []
        while start < to {
            guard intervals.count < UsageSummary.maximumSegments else {
                throw ScreenTimeBusError(
                    .invalidArgument,
                    "a report has at most \(UsageSummary.maximumSegments) segments: ask for a shorter range, or "
                        + "longer segments")
            }
            guard let next = calendar.date(byAdding: component, value: 1, to: start) else { break }
            intervals.append(DateInterval(start: max(start, from), end: min(next, to)))
            start = next
        }
        return intervals
    }

}
