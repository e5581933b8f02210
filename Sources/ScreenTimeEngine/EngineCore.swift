import ScreenTimeModel

import struct Foundation.TimeZone

/// The whole state of an engine and the logic that moves it; `ActivityEngine` is its public face and
/// `EngineSnapshot` its persisted form. Every method takes the time it runs at; none reads a clock.
struct EngineCore: Sendable, Codable {
    typealias Action = ActivityEngine.Action

    /// A change of the wall-minus-monotonic offset beyond this is a clock step, not reading jitter.
    static let clockStepTolerance: Int64 = 1_000_000

    let configuration: EngineConfiguration
    /// `configuration.sampleHoldLimit` and `.pastActivityRetention` in nanoseconds, for the hot path.
    let holdLimit: Int64
    let retention: Int64
    var timeZone: TimeZone
    /// Activities by slot; a stopped activity leaves its slot empty for reuse.
    var activities: [ActivityState?] = []
    var slotByName: [DeviceActivityName: Int] = [:]
    /// Occupied slots in the order of their activities' names.
    var orderedSlots: [Int] = []
    var nextSerial: UInt64 = 1
    var users: [UserState] = []
    var userIndex: [UserID: Int] = [:]
    var stores: [UserID: [SettingsStoreName: ShieldSettings]] = [:]
    /// The effective shield last announced for each user; absent means empty.
    var shields: [UserID: EffectiveShield] = [:]
    var lastNow: Now?
    var requestedWakeUp: MonotonicInstant?

    /// Bumped whenever which activities are in an interval changes; users' matching lists follow it.
    var topology: UInt64 = 0
    /// The earliest of the activities' deadlines.
    var scheduleDeadline: WallClockInstant?
    /// Set by a change that should be persisted before the call returns.
    var durableStateChanged = false

    private enum CodingKeys: String, CodingKey {
        case configuration, timeZone, activities, slotByName, orderedSlots, nextSerial, users, userIndex, stores,
            shields, lastNow, requestedWakeUp
    }

    init(configuration: EngineConfiguration, timeZone: TimeZone) {
        self.configuration = configuration
        holdLimit = configuration.sampleHoldLimit.nanoseconds
        retention = configuration.pastActivityRetention.nanoseconds
        self.timeZone = timeZone
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try container.decode(EngineConfiguration.self, forKey: .configuration)
        holdLimit = configuration.sampleHoldLimit.nanoseconds
        retention = configuration.pastActivityRetention.nanoseconds
        timeZone = try container.decode(TimeZone.self, forKey: .timeZone)
        activities = try container.decode([ActivityState?].self, forKey: .activities)
        slotByName = try container.decode([DeviceActivityName: Int].self, forKey: .slotByName)
        orderedSlots = try container.decode([Int].self, forKey: .orderedSlots)
        nextSerial = try container.decode(UInt64.self, forKey: .nextSerial)
        users = try container.decode([UserState].self, forKey: .users)
        userIndex = try container.decode([UserID: Int].self, forKey: .userIndex)
        stores = try container.decode([UserID: [SettingsStoreName: ShieldSettings]].self, forKey: .stores)
        shields = try container.decode([UserID: EffectiveShield].self, forKey: .shields)
        lastNow = try container.decodeIfPresent(Now.self, forKey: .lastNow)
        requestedWakeUp = try container.decodeIfPresent(MonotonicInstant.self, forKey: .requestedWakeUp)
        recomputeScheduleDeadline()
    }

    var zone: ZoneRules { ZoneRules(timeZone: timeZone) }

    // MARK: - Handling events

    mutating func handle(_ event: ActivityEngine.Event, at now: Now, into actions: inout [Action]) {
        switch event {
        case .sessionsUnknown, .systemDidResume:
            // What the sessions showed before is stale: count none of the time since.
            forgetSessions()
        default:
            break
        }
        advanceTime(to: now, into: &actions)
        // By identifier: `TimeZone.autoupdatingCurrent` never equals a fixed zone, and the engine must hold a
        // fixed one, whose rules do not change under it between events.
        if let zone = now.timeZone, zone.identifier != timeZone.identifier {
            changeTimeZone(to: TimeZone(identifier: zone.identifier) ?? zone, at: now, into: &actions)
        }
        switch event {
        case .sample(let sample):
            record(sample, at: now, into: &actions)
        case .sessionEnded(let user, let session):
            if let index = userIndex[user] {
                advanceUser(index, to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
                users[index].sessions.removeAll { $0.id == session }
                users[index].invalidateUses()
            }
        case .startMonitoring(let registration):
            startMonitoring(registration, at: now, into: &actions)
        case .stopMonitoring(let names):
            advanceAllUsers(to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
            for name in names { stopMonitoring(name, into: &actions) }
            recomputeScheduleDeadline()
        case .timeZoneChanged(let newZone):
            changeTimeZone(to: newZone, at: now, into: &actions)
        case .systemWillSuspend:
            advanceAllUsers(to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
            forgetSessions()
        case .settingsStoreChanged(let user, let store, let settings):
            changeStore(store, of: user, to: settings, into: &actions)
        case .wakeUp:
            advanceAllUsers(to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
        case .wallClockChanged, .systemDidResume, .sessionsUnknown:
            break
        }
        refreshWakeUp(at: now, into: &actions)
        if durableStateChanged {
            durableStateChanged = false
            actions.append(.persistSnapshot)
        }
    }

    /// Counts use up to `now` and runs every schedule boundary that passed since the last event.
    ///
    /// While the wall clock runs with the monotonic one, each boundary is placed on the monotonic axis and use is
    /// split there, so the use before an interval's end counts in that interval. After a clock step (someone set
    /// the clock, or the system resumed) the time since the last event is counted in the intervals that were in
    /// force, then the schedules catch up with the new wall-clock time, skipping intervals that lie wholly in the
    /// jump.
    mutating func advanceTime(to now: Now, into actions: inout [Action]) {
        // The zone is kept in `timeZone`; `lastNow` holds only the two clocks.
        defer { lastNow = Now(monotonic: now.monotonic, wallClock: now.wallClock) }
        let monotonic = now.monotonic.nanoseconds
        guard let last = lastNow else {
            processSchedules(at: now.wallClock, into: &actions)
            return
        }
        if monotonic < last.monotonic.nanoseconds {
            // The monotonic clock went back: a new boot under a restored snapshot. Nothing before is known.
            forgetSessions()
            for index in users.indices { users[index].countedUntil = monotonic }
            processSchedules(at: now.wallClock, into: &actions)
            return
        }
        if abs(now.clockOffset - last.clockOffset) > Self.clockStepTolerance {
            advanceAllUsers(to: monotonic, clockOffset: last.clockOffset, into: &actions)
            processSchedules(at: now.wallClock, into: &actions)
            return
        }
        while let deadline = scheduleDeadline, deadline <= now.wallClock {
            let boundary = monotonic - (now.wallClock.nanosecondsSince1970 - deadline.nanosecondsSince1970)
            advanceAllUsers(
                to: min(max(boundary, last.monotonic.nanoseconds), monotonic), clockOffset: now.clockOffset,
                into: &actions)
            processSchedules(at: deadline, into: &actions)
        }
    }

    /// Drops every session's last sample: until sampled again, no session counts.
    mutating func forgetSessions() {
        for index in users.indices {
            users[index].sessions.removeAll()
            users[index].invalidateUses()
        }
    }

    mutating func record(_ sample: UsageSample, at now: Now, into actions: inout [Action]) {
        let monotonic = now.monotonic.nanoseconds
        let index = self.index(of: sample.user, at: monotonic)
        advanceUser(index, to: monotonic, clockOffset: now.clockOffset, into: &actions)
        if let position = users[index].sessions.firstIndex(where: { $0.id == sample.session }) {
            let session = users[index].sessions[position]
            let wasFresh = session.observedAt &+ holdLimit > monotonic
            users[index].sessions[position].observedAt = monotonic
            if !wasFresh || session.presence != sample.presence || session.uses != sample.applicationsInUse
                || users[index].usesValidUntil <= monotonic
            {
                // New content, a session coming back, or another session gone stale: rebuild the uses.
                users[index].sessions[position].presence = sample.presence
                users[index].sessions[position].uses = sample.applicationsInUse
                users[index].invalidateUses()
            } else {
                // Same content and no session gone stale: only the validity of the cached uses moves.
                users[index].usesValidUntil = users[index].sessions.reduce(Int64.max) { earliest, session in
                    let expiry = session.observedAt &+ holdLimit
                    return expiry > monotonic ? min(earliest, expiry) : earliest
                }
            }
        } else {
            users[index].sessions.append(
                UserState.Session(
                    id: sample.session, presence: sample.presence, uses: sample.applicationsInUse,
                    observedAt: monotonic))
            users[index].invalidateUses()
        }
    }

    /// The index of a user's state, created on first sight with nothing counted before `monotonic`.
    mutating func index(of user: UserID, at monotonic: Int64) -> Int {
        if let index = userIndex[user] { return index }
        var state = UserState(user: user)
        state.countedUntil = monotonic
        users.append(state)
        userIndex[user] = users.count - 1
        return users.count - 1
    }

    // MARK: - Settings stores

    mutating func changeStore(
        _ store: SettingsStoreName, of user: UserID, to policy: ShieldSettings?, into actions: inout [Action]
    ) {
        var userStores = stores[user] ?? [:]
        guard userStores[store] != policy else { return }
        userStores[store] = policy
        stores[user] = userStores.isEmpty ? nil : userStores
        durableStateChanged = true
        let shield = EffectiveShield(union: userStores.sorted { $0.key < $1.key }.map(\.value))
        guard shield != (shields[user] ?? EffectiveShield()) else { return }
        shields[user] = shield.isEmpty ? nil : shield
        actions.append(.shieldChanged(user: user, shield: shield))
    }

    // MARK: - Wake-ups

    /// Asks for a wake-up at the earliest of the next schedule deadline and the next usage point any user would
    /// reach if their use goes on as it is, when that differs from the last request.
    mutating func refreshWakeUp(at now: Now, into actions: inout [Action]) {
        var earliest: Int64?
        if let deadline = scheduleDeadline {
            earliest = deadline.nanosecondsSince1970 - now.clockOffset
        }
        for index in users.indices {
            if users[index].nextCrossingIsStale || users[index].matchingTopology != topology {
                computeNextCrossing(index)
            }
            if let crossing = users[index].nextCrossing { earliest = min(earliest ?? crossing, crossing) }
        }
        let wakeUp = earliest.map(MonotonicInstant.init(nanoseconds:))
        guard wakeUp != requestedWakeUp else { return }
        requestedWakeUp = wakeUp
        actions.append(wakeUp.map(Action.scheduleWakeUp) ?? .cancelWakeUp)
    }
}
