import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

extension PolicyPlan {
    /// The plan of the empty policy: nothing monitored.
    static let empty = PolicyPlan(
        policy: .empty, appToken: { _ in ApplicationToken(rawValue: "") },
        categoryToken: { _ in ActivityCategoryToken(rawValue: "") })
}

extension DaemonRuntime {
    // MARK: - Policy

    mutating func apply(_ newPlan: PolicyPlan, at now: Now, into actions: inout [Action]) {
        let wanted = Dictionary(uniqueKeysWithValues: newPlan.registrations.map { ($0.name, $0) })
        let stale = engine.activities.filter { name in
            let text = name.rawValue
            guard text.hasPrefix("limit.") || text.hasPrefix("downtime.") else {
                // Extra time outlives reloads unless its limit is gone.
                return text.hasPrefix("extra.") && newPlan.limit(for: name) == nil
            }
            return wanted[name] == nil
        }
        // Stores of limits and downtimes that no longer exist are cleared for everyone.
        let storesInForce = Set(newPlan.limits.map(\.store)).union(newPlan.downtimeShields.values.map(\.store))
        let staleStores = Set(
            stale.map { name in
                plan.limit(for: name)?.store ?? plan.downtimeShields[name]?.store ?? SettingsStoreName(name.rawValue)
            }
        ).subtracting(storesInForce)
        setPlan(newPlan)
        if !stale.isEmpty { run(engine.handle(.stopMonitoring(stale), at: now), at: now, into: &actions) }
        for registration in newPlan.registrations where engine.registration(of: registration.name) != registration {
            run(engine.handle(.startMonitoring(registration), at: now), at: now, into: &actions)
        }
        for user in knownUsers {
            for store in staleStores { setStore(store, of: user, to: nil, at: now, into: &actions) }
            // A user the plan no longer holds to a store (exempted, or given a policy of their own) is released
            // from it: the activity's end, which would clear it, now concerns its remaining users only.
            for store in storesInForce
            where engine.settings(of: store, for: user) != nil && !plan.holds(store, for: user) {
                setStore(store, of: user, to: nil, at: now, into: &actions)
            }
        }
        // Downtimes in progress (also those restored from a snapshot) hold their stores.
        activeDowntimes = Set(plan.downtimeShields.keys.filter { engine.currentInterval(of: $0) != nil })
        for activity in activeDowntimes {
            for user in knownUsers { applyDowntime(activity, to: user, at: now, into: &actions) }
        }
        actions.append(
            .log(
                .info, "policy in force",
                ["limits": "\(newPlan.limits.count)", "downtimes": "\(newPlan.downtimeShields.count)"]))
    }

    mutating func applyActiveDowntimes(to user: UserID, at now: Now, into actions: inout [Action]) {
        for activity in activeDowntimes { applyDowntime(activity, to: user, at: now, into: &actions) }
    }

    private mutating func applyDowntime(
        _ activity: DeviceActivityName, to user: UserID, at now: Now, into actions: inout [Action]
    ) {
        guard let downtime = plan.downtimeShields[activity], downtime.users.includes(user) else { return }
        setStore(downtime.store, of: user, to: downtime.shield, at: now, into: &actions)
    }

    private mutating func setStore(
        _ store: SettingsStoreName, of user: UserID, to settings: ShieldSettings?, at now: Now,
        into actions: inout [Action]
    ) {
        run(
            storeChanged(user: user, store: store, settings: settings, at: now), at: now,
            into: &actions)
    }

    // MARK: - Engine actions

    mutating func run(_ engineActions: [ActivityEngine.Action], at now: Now, into actions: inout [Action]) {
        guard !engineActions.isEmpty else { return }
        var queue = engineActions[...]
        while let action = queue.popFirst() {
            actions += extensionCalls(for: action)
            if action.isMonitorCallback { actions.append(.announce(action)) }
            switch action {
            case .intervalDidStart(let activity):
                if let downtime = plan.downtimeShields[activity] {
                    activeDowntimes.insert(activity)
                    for user in knownUsers where downtime.users.includes(user) {
                        queue += storeChanged(user: user, store: downtime.store, settings: downtime.shield, at: now)
                    }
                    actions.append(
                        .log(
                            .notice, "downtime started",
                            ["activity": "\(activity)"].merging(JournalMessage.downtimeStarted.metadata) { $1 }))
                } else if let limit = plan.limit(for: activity), activity == limit.activity {
                    for user in knownUsers where limit.applies(to: user) {
                        queue += storeChanged(user: user, store: limit.store, settings: nil, at: now)
                    }
                    actions.append(
                        .log(
                            .info, "limit's new interval, its shield released",
                            ["limit": "\(limit.name)"].merging(JournalMessage.limitReset.metadata) { $1 }))
                }
            case .intervalDidEnd(let activity):
                if let downtime = plan.downtimeShields[activity] {
                    activeDowntimes.remove(activity)
                    for user in knownUsers where downtime.users.includes(user) {
                        queue += storeChanged(user: user, store: downtime.store, settings: nil, at: now)
                    }
                    actions.append(
                        .log(
                            .notice, "downtime ended",
                            ["activity": "\(activity)"].merging(JournalMessage.downtimeEnded.metadata) { $1 }))
                } else if let limit = plan.limit(for: activity), activity == limit.activity {
                    for user in knownUsers where limit.applies(to: user) {
                        queue += storeChanged(user: user, store: limit.store, settings: nil, at: now)
                    }
                }
            case .intervalWillStartWarning, .intervalWillEndWarning:
                break
            case .eventWillReachThresholdWarning(_, let activity, let user):
                guard let limit = plan.limit(for: activity) else { break }
                let left = limit.warning.map(Self.describe) ?? "a little time"
                actions.append(
                    .log(
                        .notice, "limit warning",
                        ["limit": "\(limit.name)", "user": "\(user)"].merging(JournalMessage.limitWarning.metadata) {
                            $1
                        }))
                let title = "\(left) left for \(limit.name)"
                noteNotification(.warning, to: user, limit: limit.name, title: title, at: now)
                actions.append(
                    .warn(user: user, title: title, body: "Screen Time: your \(limit.name) limit is almost reached."))
            case .eventDidReachThreshold(_, let activity, let user):
                guard let limit = plan.limit(for: activity) else { break }
                // The limit's activity started again (a policy edit changed it) and counted the day's use anew: the
                // extra time granted after it still runs, and its own threshold shields when it is used up.
                if activity == limit.activity, runsExtraTime(of: limit, for: user) {
                    actions.append(
                        .log(
                            .info, "limit reached again while its extra time runs; no shield until that is used",
                            ["limit": "\(limit.name)", "user": "\(user)"]))
                    break
                }
                actions.append(
                    .log(
                        .notice, "limit reached, shielding",
                        ["limit": "\(limit.name)", "user": "\(user)"].merging(JournalMessage.limitReached.metadata) {
                            $1
                        }))
                actions.append(.limitReached(now.monotonic))
                queue += storeChanged(user: user, store: limit.store, settings: limit.shield, at: now)
                let extra = limit.shieldText.extraTime.flatMap { extra -> String? in
                    shieldGrants(of: limit, for: user) < limit.shieldText.extraTimesPerDay
                        ? "\(Self.describe(extra)) more" : nil
                }
                let title = "Time limit reached: \(limit.name)"
                noteNotification(.shield, to: user, limit: limit.name, title: title, at: now)
                actions.append(
                    .notifyShield(
                        user: user, limit: limit.name, title: title,
                        body: limit.shieldText.message
                            ?? "You have used your \(Self.describe(limit.daily)) of \(limit.name) today.",
                        extraTimeLabel: extra))
            case .shieldChanged(let user, let shield):
                setShield(shield.isEmpty ? nil : shield, for: user)
                noteShield(shield.isEmpty ? nil : shield, for: user, at: now)
                actions.append(.announce(action))
            case .scheduleWakeUp(let instant):
                wakeUp = instant
            case .cancelWakeUp:
                wakeUp = nil
            case .monitoringRefused(let activity, let error):
                actions.append(
                    .log(.error, "the engine refused an activity", ["activity": "\(activity)", "error": "\(error)"]))
            case .persistSnapshot:
                requestSnapshot()
            }
        }
    }

    /// The monitor extension runs for a callback, if its activity names one: once, or in guardian mode once for each
    /// user it concerns (the event's user; for an interval, each user its policy limits who has been seen), as them.
    private func extensionCalls(for action: ActivityEngine.Action) -> [Action] {
        let call: (MonitorCallback, DeviceActivityName, ActivityEventName?)
        var user: UserID?
        switch action {
        case .intervalDidStart(let activity): call = (.intervalDidStart, activity, nil)
        case .intervalDidEnd(let activity): call = (.intervalDidEnd, activity, nil)
        case .intervalWillStartWarning(let activity): call = (.intervalWillStartWarning, activity, nil)
        case .intervalWillEndWarning(let activity): call = (.intervalWillEndWarning, activity, nil)
        case .eventWillReachThresholdWarning(let event, let activity, let who):
            call = (.eventWillReachThresholdWarning, activity, event)
            user = who
        case .eventDidReachThreshold(let event, let activity, let who):
            call = (.eventDidReachThreshold, activity, event)
            user = who
        default: return []
        }
        guard let declared = plan.extensions[call.1] else { return [] }
        let users: [UserID?] =
            !settings.system
            ? [nil]
            : user.map { [$0] } ?? knownUsers.filter(declared.users.includes).sorted().map(Optional.some)
        return users.map { user in
            .runExtension(
                executable: declared.executable, callback: call.0, activity: declared.activity, event: call.2?.rawValue,
                user: user)
        }
    }

    // MARK: - Answers

    mutating func answered(_ answer: NotificationAnswer, at now: Now, into actions: inout [Action]) {
        guard case .limit(let name) = answer.subject,
            let limit = plan.limits(of: answer.user).first(where: { $0.name == name })
        else { return }
        switch answer.choice {
        case .close:
            requestClose(.limit(limit.store, of: answer.user))
            actions.append(.log(.notice, "close requested from the shield", ["limit": "\(limit.name)"]))
        case .extraTime:
            guard engine.settings(of: limit.store, for: answer.user) != nil else {
                actions.append(
                    .log(.notice, "extra time refused: the limit is not reached", ["limit": "\(limit.name)"]))
                return
            }
            guard let extra = limit.shieldText.extraTime,
                shieldGrants(of: limit, for: answer.user) < limit.shieldText.extraTimesPerDay
            else {
                actions.append(.log(.notice, "extra time refused: none left today", ["limit": "\(limit.name)"]))
                return
            }
            grant(
                extra, after: limit, to: answer.user, reason: "asked from the shield", fromShield: true, at: now,
                into: &actions)
        }
    }

    /// Whether extra time granted to `user` after `limit` is still running (its threshold not reached).
    func runsExtraTime(of limit: PolicyPlan.Limit, for user: UserID) -> Bool {
        let prefix = PolicyPlan.extraPrefix(of: limit, for: user)
        return engine.activities.contains { activity in
            activity.rawValue.hasPrefix(prefix)
                && (engine.usage(of: PolicyPlan.extraEvent, in: activity, for: user).map { $0.remaining > .zero }
                    ?? false)
        }
    }

    /// How many times `user` took `limit`'s extra time from its shield in the limit's current interval: the engine's
    /// live registrations of it, so that a restart or a reboot gives none back.
    func shieldGrants(of limit: PolicyPlan.Limit, for user: UserID) -> Int {
        let prefix = PolicyPlan.fromShieldPrefix(of: limit, for: user)
        return engine.activities.count { $0.rawValue.hasPrefix(prefix) }
    }

    /// `screentime extra`: `extra` more time today for `user` on the limit named `name`, or, without a name, on
    /// every limit that shields them now. Apple's "ignore limit": not counted against the shield's extra times.
    /// Returns the limits granted, or why none was (no such limit, or the limit isn't reached).
    mutating func grantExtraTime(
        _ extra: Duration, limit name: String?, to user: UserID, at now: Now, into actions: inout [Action]
    ) -> Result<[String], ExtraTimeRefusal> {
        let limits = plan.limits(of: user)
        let reached = limits.filter { limit in
            (name == nil || limit.name == name) && engine.settings(of: limit.store, for: user) != nil
        }
        if reached.isEmpty {
            if let name, !limits.contains(where: { $0.name == name }) {
                return .failure(.noSuchLimit(name, known: limits.map(\.name).sorted()))
            }
            return .failure(.notReached(name))
        }
        for limit in reached {
            grant(extra, after: limit, to: user, reason: "screentime extra", fromShield: false, at: now, into: &actions)
        }
        return .success(reached.map(\.name))
    }

    /// Lifts `limit`'s shield for `user` until they have used `extra` more of its apps today, and records the grant.
    private mutating func grant(
        _ extra: Duration, after limit: PolicyPlan.Limit, to user: UserID, reason: String, fromShield: Bool,
        at now: Now, into actions: inout [Action]
    ) {
        // Named by the time of the grant: unique within the day, also across restarts that restore earlier grants.
        let local = Calendar.current.dateComponents(in: now.timeZone ?? TimeZone.current, from: now.date)
        let registration = PolicyPlan.extraTime(
            extra, after: limit, for: user, number: Int(now.date.timeIntervalSince1970 * 1000), fromShield: fromShield,
            startingAt: (local.hour ?? 0, local.minute ?? 0, local.second ?? 0))
        run(engine.handle(.startMonitoring(registration), at: now), at: now, into: &actions)
        setStore(limit.store, of: user, to: nil, at: now, into: &actions)
        batch.grants.append(
            ExtraTimeGrant(
                user: user, target: limit.name, seconds: extra.components.seconds, grantedAt: now.date, reason: reason))
        actions.append(
            .log(.notice, "extra time granted", ["limit": "\(limit.name)", "extra": "\(extra)", "reason": "\(reason)"]))
    }

    static func describe(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 {
            return seconds >= 3600 ? "\(seconds / 3600) h \(seconds % 3600 / 60) min" : "\(seconds / 60) min"
        }
        return "\(seconds) s"
    }
}

/// Why `screentime extra` granted nothing.
enum ExtraTimeRefusal: Error, Hashable, CustomStringConvertible {
    /// The policy has no limit of that name.
    case noSuchLimit(String, known: [String])
    /// No limit (or not the one named) shields the user now: extra time starts once a limit is reached.
    case notReached(String?)

    var description: String {
        switch self {
        case .noSuchLimit(let name, let known):
            "the policy has no limit named \(name)"
                + (known.isEmpty ? "" : "; its limits: \(known.joined(separator: ", "))")
        case .notReached(let name?):
            "limit \(name) is not reached; extra time is for a limit that shields you"
        case .notReached(nil):
            "no limit shields you now; extra time is for a limit that does"
        }
    }
}
