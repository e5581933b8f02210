import ScreenTimeModel

/// What the engine knows of one user: their sessions' last samples, how far their use is counted, their event
/// counters and their usage ledger. Everything after `ledger` is a cache, rebuilt after a restore.
struct UserState: Sendable, Codable {
    struct Session: Hashable, Sendable, Codable {
        var id: SessionID
        var presence: SessionPresence
        var uses: [AppUse]
        /// Monotonic nanoseconds of the last sample.
        var observedAt: Int64
    }

    /// One event's use within the interval numbered `serial`.
    struct Counter: Hashable, Sendable, Codable {
        var serial: UInt64 = 0
        var used: Int64 = 0
        var warned = false
        var reached = false
    }

    /// An event of an activity, by slot, that the user's current use counts toward, with what crediting needs of
    /// it so that the hot path never touches the activity itself. Rebuilt whenever an interval starts (which
    /// changes `serial`).
    struct CounterReference: Hashable, Sendable {
        var slot: Int
        var event: Int
        var serial: UInt64
        var threshold: Int64
        var warningPoint: Int64?
    }

    /// A point reached while crediting: which counter, which point, and how far into the credited piece.
    struct Crossing: Sendable {
        var offset: Int64
        var slot: Int
        var event: Int
        var isWarning: Bool
    }

    let user: UserID
    var sessions: [Session] = []
    /// Monotonic nanoseconds up to which use has been counted; `nil` before the first event seen for the user.
    var countedUntil: Int64?
    /// Counters by activity slot, then by event.
    var counters: [[Counter]] = []
    var ledger = UsageLedger()

    /// The apps in front in the user's fresh, active sessions.
    var uses: [AppUse] = []
    /// Whether any fresh session is active, so that time counts.
    var counting = false
    /// Monotonic nanoseconds at which a session's sample goes stale and `uses` must be rebuilt.
    var usesValidUntil: Int64 = .min
    /// Bumped whenever `uses` or `counting` change.
    var usesGeneration: UInt64 = 0
    var matching: [CounterReference] = []
    var matchingTopology: UInt64 = .max
    var matchingGeneration: UInt64 = .max
    /// Monotonic nanoseconds at which a counter will reach its next point if use goes on as it is.
    var nextCrossing: Int64?
    var nextCrossingIsStale = true

    init(user: UserID) { self.user = user }

    private enum CodingKeys: String, CodingKey {
        case user, sessions, countedUntil, counters, ledger
    }

    /// Marks the derived state for rebuilding at the next use.
    mutating func invalidateUses() {
        usesValidUntil = .min
        nextCrossingIsStale = true
    }

    /// Rebuilds `uses` and `counting` from the sessions whose samples are fresh at `instant`.
    mutating func rebuildUses(at instant: Int64, holdLimit: Int64) {
        var newUses: [AppUse] = []
        var newCounting = false
        var validUntil = Int64.max
        var activeSessions = 0
        for session in sessions {
            let expiry = session.observedAt &+ holdLimit
            guard expiry > instant else { continue }
            validUntil = min(validUntil, expiry)
            guard session.presence.counts else { continue }
            newCounting = true
            activeSessions += 1
            if activeSessions == 1 {
                newUses = session.uses
            } else {
                for use in session.uses where !newUses.contains(use) { newUses.append(use) }
            }
        }
        usesValidUntil = validUntil
        if newCounting != counting || newUses != uses {
            counting = newCounting
            uses = newUses
            usesGeneration &+= 1
            nextCrossingIsStale = true
        }
    }

    /// Adds `length` nanoseconds to every counter in `matching`, appending the points reached to `crossings`.
    mutating func credit(_ length: Int64, to matching: [CounterReference], crossings: inout [Crossing]) {
        for reference in matching {
            var counter = counter(slot: reference.slot, event: reference.event, serial: reference.serial)
            let before = counter.used
            counter.used = before + length
            if !counter.reached {
                if !counter.warned, let point = reference.warningPoint, counter.used >= point {
                    counter.warned = true
                    crossings.append(
                        Crossing(
                            offset: max(point - before, 0), slot: reference.slot, event: reference.event,
                            isWarning: true))
                }
                if counter.used >= reference.threshold {
                    counter.reached = true
                    crossings.append(
                        Crossing(
                            offset: reference.threshold - before, slot: reference.slot, event: reference.event,
                            isWarning: false))
                }
            }
            counters[reference.slot][reference.event] = counter
        }
    }

    /// The counter of an event, reset if it belongs to an earlier interval.
    func counter(slot: Int, event: Int, serial: UInt64) -> Counter {
        let counter = counters[slot][event]
        return counter.serial == serial ? counter : Counter(serial: serial)
    }

    /// Makes room for the counters of an activity slot with `count` events.
    mutating func reserveCounters(slot: Int, count: Int) {
        if counters.count <= slot { counters.append(contentsOf: repeatElement([], count: slot + 1 - counters.count)) }
        if counters[slot].count < count {
            counters[slot].append(contentsOf: repeatElement(Counter(), count: count - counters[slot].count))
        }
    }
}
