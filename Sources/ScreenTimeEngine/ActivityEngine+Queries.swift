import ScreenTimeModel

/// One user's use toward one event in the current interval.
public struct EventUsage: Hashable, Sendable, Codable {
    /// Use counted in the current interval (zero between intervals).
    public var used: Duration
    public var threshold: Duration
    /// How much use is left before the threshold; zero once it is reached.
    public var remaining: Duration { max(threshold - used, .zero) }
    public var warningGiven: Bool
    public var thresholdReached: Bool
    /// Whether the activity is in an interval, so that use counts.
    public var isInInterval: Bool
}

extension ActivityEngine {
    /// The monitored activities, by name.
    public var activities: [DeviceActivityName] {
        core.orderedSlots.compactMap { core.activities[$0]?.name }
    }

    /// How an activity is monitored, or `nil` if it is not.
    public func registration(of activity: DeviceActivityName) -> ActivityRegistration? {
        state(of: activity)?.registration
    }

    /// The interval of an activity in progress, or `nil` between intervals and for an activity not monitored.
    public func currentInterval(of activity: DeviceActivityName) -> ScheduledInterval? {
        guard case .inInterval(let interval) = state(of: activity)?.phase else { return nil }
        return interval
    }

    /// The next interval of an activity to start, or `nil` if it has none (a schedule that does not repeat, in its
    /// interval) or is not monitored.
    public func nextInterval(of activity: DeviceActivityName) -> ScheduledInterval? {
        guard let state = state(of: activity) else { return nil }
        switch state.phase {
        case .waiting(let interval, _, _):
            return interval
        case .inInterval(let interval):
            guard state.schedule.repeats else { return nil }
            return core.nextInterval(after: interval, of: state.schedule, endingAfter: interval.end)
        }
    }

    /// A user's use toward an event at the time of the last handled event, counting the use their sessions' samples
    /// held since. `nil` if the activity is not monitored, has no such event, or does not count the user.
    public func usage(of event: ActivityEventName, in activity: DeviceActivityName, for user: UserID) -> EventUsage? {
        guard let slot = core.slotByName[activity], let state = core.activities[slot],
            state.registration.applies(to: user),
            let position = state.events.firstIndex(where: { $0.name == event })
        else { return nil }
        var counter = UserState.Counter()
        if let index = core.userIndex[user], let now = core.lastNow {
            counter = core.projectedCounter(user: index, slot: slot, event: position, at: now.monotonic.nanoseconds)
        }
        return EventUsage(
            used: .nanoseconds(counter.used), threshold: .nanoseconds(state.events[position].threshold),
            warningGiven: counter.warned, thresholdReached: counter.reached, isInInterval: state.isInInterval)
    }

    /// Every event's use for a user, by activity and event name.
    public func usage(for user: UserID) -> [DeviceActivityName: [ActivityEventName: EventUsage]] {
        var result: [DeviceActivityName: [ActivityEventName: EventUsage]] = [:]
        for name in activities {
            guard let state = state(of: name) else { continue }
            for slot in state.events {
                if let usage = usage(of: slot.name, in: name, for: user) {
                    result[name, default: [:]][slot.name] = usage
                }
            }
        }
        return result
    }

    /// What is shielded for a user: the union of their settings stores.
    public func effectiveShield(for user: UserID) -> EffectiveShield {
        core.shields[user] ?? EffectiveShield()
    }

    /// The policy a user's settings store holds, or `nil` if it is clear.
    public func settings(of store: SettingsStoreName, for user: UserID) -> ShieldSettings? {
        core.stores[user]?[store]
    }

    /// The wake-up last asked for, to re-arm a timer after a restore.
    public var requestedWakeUp: MonotonicInstant? { core.requestedWakeUp }

    private func state(of activity: DeviceActivityName) -> ActivityState? {
        core.slotByName[activity].flatMap { core.activities[$0] }
    }
}

extension ActivityEngine {
    /// Every user with a shield in force, with it: after a restore, what must stay shielded before any event.
    public var shields: [UserID: EffectiveShield] {
        core.shields.filter { !$0.value.isEmpty }
    }

    /// The time of the last event handled: after a restore, how old the sessions' last samples are.
    public var lastEventTime: Now? { core.lastNow }

    /// Every user the engine has counted or holds settings for.
    public var knownUsers: Set<UserID> {
        Set(core.userIndex.keys).union(core.stores.keys)
    }
}
