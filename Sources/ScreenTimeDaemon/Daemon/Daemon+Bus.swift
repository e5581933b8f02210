import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel

/// The daemon as the one real `BusRequestHandler`: it answers its D-Bus clients on the engine loop's thread, where
/// it owns the engine, the collector and the store.
extension Daemon: BusRequestHandler {
    /// Answers the D-Bus requests queued since the last pass; the engine loop calls it at each pass (cheap when
    /// nothing is queued).
    ///
    /// Requests wait until the store writer's first attempt to open the ledger has ended (milliseconds after the
    /// start, longer for a large ledger, whose opening checks it; while another process holds it locked, up to each
    /// step's busy timeout): a client's records are read from the ledger, and a call made as soon as the daemon
    /// appeared on the bus would otherwise be refused with "try again". The store writer wakes the loop when that
    /// attempt ends.
    public func answerBusRequests(at now: Now) {
        guard storeWriter.health.openAttempted else { return }
        busRequests.answerPending(with: self, at: now)
    }

    /// Publishes the state the `Daemon1` properties show, at the end of each tick: what a reload or an answer changed
    /// between ticks shows from the next one, and the passes between ticks (rechecks, wake-ups) build nothing.
    func publishBusState() {
        var state = DaemonBusState()
        state.mode = settings.system ? "guardian" : "individual"
        state.policyPath = settings.policyPath
        state.policyError = runtime.policyError.map { "\($0)" } ?? ""
        state.shieldedUsers = UInt32(clamping: shieldedUsers)
        state.storeMovedAside = storeWriter.health.movedAside.last ?? ""
        busRequests.publish(state)
    }

    public func answer(_ request: BusRequest, from caller: CallerProcess, at now: Now)
        -> Result<BusAnswer, ScreenTimeBusError>
    {
        do throws(ScreenTimeBusError) {
            return .success(try respond(to: request, from: caller, at: now))
        } catch {
            return .failure(error)
        }
    }

    private func respond(to request: BusRequest, from caller: CallerProcess, at now: Now)
        throws(ScreenTimeBusError) -> BusAnswer
    {
        switch request {
        case .status:
            // In guardian mode each user sees their own rows; root sees everyone's.
            var status = status(at: now)
            let caller = caller.credentials.user.rawValue
            if caller != 0 { status.rows.removeAll { $0.user != caller } }
            return .text(try BusJSON.encode(status))
        case .reload:
            // A guardian's files are reread whenever one changes; asking for it is root's (a loop of it costs the
            // daemon's time).
            if settings.system, caller.credentials.user.rawValue != 0 {
                throw ScreenTimeBusError(
                    .notAuthorized, "only root reloads a guardian's policies; they are reread whenever a file changes")
            }
            if let error = reload(at: now) { throw ScreenTimeBusError(.invalidPolicy, "\(error)") }
            return .nothing
        case .ask(let seconds, let reason):
            return .number(try ask(seconds: seconds, reason: reason, from: caller, at: now))
        case .requests:
            return .text(try listRequests(for: caller, at: now))
        case .answerShield(let limit, let close):
            // Only the caller's own shield, and only what its buttons may do (the policy's extra time, if any). A
            // close asked of a guardian's daemon would end every user's instances of the app: each closes their own.
            if close && settings.system {
                throw ScreenTimeBusError(
                    .invalidArgument, "a guardian's daemon closes no app on request: close it yourself")
            }
            let answer = NotificationAnswer(
                user: caller.credentials.user, subject: .limit(limit), choice: close ? .close : .extraTime)
            perform(runtime.handle(.answered(answer), at: now))
            enforce(at: now)
            return .nothing
        case .answerRequest(let id, let approve, let seconds):
            return .texts(try answerRequests(id: id, approve: approve, seconds: seconds, from: caller, at: now))
        case .grantExtraTime(let limit, let seconds):
            return .texts(try grantExtraTime(limit: limit.isEmpty ? nil : limit, seconds: seconds, to: caller, at: now))
        case .applications:
            return .text(try BusJSON.encode(collector.catalog(for: caller.credentials.user).installedApps()))
        case .application(let id):
            guard !id.isEmpty else { throw ScreenTimeBusError(.invalidArgument, "an application's id is empty") }
            return .text(try BusJSON.encode(collector.catalog(for: caller.credentials.user).label(for: AppID(id))))
        default: break
        }
        let client = try client(of: caller)
        // A request that comes between the start and the first tick must see the clients' records too.
        if !clientsRestored { restoreClients(at: now) }
        guard clientsRestored else {
            throw ScreenTimeBusError(
                .failed, "the usage store is not open yet, so \(client)'s records can't be read; try again")
        }
        switch request {
        case .extensions:
            var declared = DeclaredExtensions(application: client.app.rawValue)
            for kind in ScreenTimeExtensionKind.allCases {
                if let executable = declaredExtension(kind, of: client) {
                    declared.extensions[kind.rawValue] = executable
                }
            }
            return .text(try BusJSON.encode(declared))
        case .requestAuthorization(let member): return .text(try requestAuthorization(for: member, by: client, at: now))
        case .authorizationStatus: return .text(clients.authorizations[client] ?? "notDetermined")
        case .revokeAuthorization:
            try saveAuthorization("denied", of: client, at: now)
            return .nothing
        default:
            guard clients.authorizations[client] == "approved" else {
                throw ScreenTimeBusError(
                    .notAuthorized,
                    "\(client) is not authorized: call org.screentime.Authorization1.RequestAuthorization first")
            }
        }
        return try respondToClient(request, from: client, at: now)
    }

    /// The client a calling process is: its user, and its app as the collector resolves it; or, for an extension
    /// the daemon runs, the app that declared it (known by the token in the extension's environment).
    private func client(of caller: CallerProcess) throws(ScreenTimeBusError) -> BusClient {
        let user = caller.credentials.user
        // A guardian's daemon limits the users its policies cover: nobody else (a parent, a service account) keeps
        // activities or stores in it.
        guard settings.users.includes(user), !settings.system || runtime.plan.covers(user) else {
            throw ScreenTimeBusError(.notAuthorized, "uid \(user.rawValue) is not a user this daemon limits")
        }
        if let token = caller.initialEnvironmentValue(ExtensionTokens.variable), !token.isEmpty {
            guard let client = extensionTokens.client(for: token), client.user == user else {
                throw ScreenTimeBusError(
                    .notAuthorized,
                    "\(ExtensionTokens.variable) is not the token of a running extension of uid \(user.rawValue): it "
                        + "is valid only while the daemon runs that extension")
            }
            return client
        }
        guard let app = collector.application(of: caller) else {
            throw ScreenTimeBusError(
                .notAuthorized,
                "cannot identify the app of process \(caller.credentials.process.rawValue): it exited, or its "
                    + "executable can't be read")
        }
        return BusClient(user: user, app: app.id)
    }

    private func requestAuthorization(for member: String, by client: BusClient, at now: Now)
        throws(ScreenTimeBusError) -> String
    {
        switch member {
        case "individual":
            // A person may always limit themselves: on the session bus the user's own daemon, on the system bus a
            // guardian's, which answers only the users it limits (`client(of:)`).
            try saveAuthorization("approved", of: client, at: now)
            return "approved"
        case "child":
            // A child is a user a guardian's policy covers: only the guardian (system) daemon knows of one.
            guard settings.system else {
                throw ScreenTimeBusError(
                    .guardianModeUnavailable,
                    "authorization for a child comes from a guardian's daemon (screentimed --system, guardian mode), "
                        + "and this is a user's own; ask for .individual to limit your own use")
            }
            guard runtime.plan.covers(client.user) else {
                throw ScreenTimeBusError(
                    .notAuthorized,
                    "uid \(client.user.rawValue) is not a user a guardian's policy covers: "
                        + "/etc/screentime/default.toml "
                        + "covers regular users (uid 1000 and above) it does not exempt, users/NAME.toml the user NAME")
            }
            try saveAuthorization("approved", of: client, at: now)
            return "approved"
        default:
            throw ScreenTimeBusError(.invalidArgument, "unknown member \"\(member)\": use individual or child")
        }
    }

    private func saveAuthorization(_ status: String, of client: BusClient, at now: Now) throws(ScreenTimeBusError) {
        let limit = settings.clientLimits.maximumAppsPerUser
        if clients.authorizations[client] == nil,
            clients.authorizations.keys.count(where: { $0.user == client.user }) >= limit
        {
            throw ScreenTimeBusError(
                .invalidArgument, "the daemon keeps the authorizations of \(limit) of your apps, the most one user may")
        }
        try persist(.authorization, name: "", json: status, of: client, at: now)
        clients.authorizations[client] = status
    }

    // MARK: - Status

    /// Every limit's and downtime's state for each user the daemon limits, and the policy's and the store's state.
    func status(at now: Now) -> DaemonStatus {
        DaemonStatus(runtime: runtime, at: now, movedAside: storeWriter.health.movedAside)
    }

    static func date(_ instant: WallClockInstant) -> Date {
        Date(timeIntervalSince1970: TimeInterval(instant.nanosecondsSince1970) / 1e9)
    }

    // MARK: - Signals

    /// Queues the signal an engine action makes: a callback of a client's activity, or a user's new shield.
    func publishToBus(_ action: ActivityEngine.Action) {
        if case .shieldChanged(let user, let shield) = action {
            if let json = try? BusJSON.encode(shield) { busRequests.emit(.shieldChanged(user: user, json: json)) }
            return
        }
        guard let call = Self.clientCallback(of: action) else { return }
        busRequests.emit(
            .callback(
                user: call.client.user, client: call.client.app, callback: call.callback, activity: call.activity,
                event: call.event ?? ""))
    }
}

extension Daemon {
    /// `GrantExtraTime`: in individual mode the caller grants themselves more time today, as Apple's "ignore limit";
    /// in guardian mode more time is the guardian's to give, and the call is refused.
    func grantExtraTime(limit: String?, seconds: UInt32, to caller: CallerProcess, at now: Now)
        throws(ScreenTimeBusError) -> [String]
    {
        guard !settings.system else {
            throw ScreenTimeBusError(
                .notAuthorized, "a guardian's limits are theirs to lift: ask them for more time")
        }
        guard seconds > 0, seconds <= 24 * 3600 else {
            throw ScreenTimeBusError(.invalidArgument, "extra time must be more than 0 and at most 24 hours")
        }
        var actions: [DaemonRuntime.Action] = []
        let outcome = runtime.grantExtraTime(
            .seconds(seconds), limit: limit, to: caller.credentials.user, at: now, into: &actions)
        perform(actions)
        switch outcome {
        case .success(let limits):
            enforce(at: now)
            return limits
        case .failure(let refusal):
            throw ScreenTimeBusError(.invalidArgument, "\(refusal)")
        }
    }
}
