import ScreenTimeModel

extension EngineCore {
    /// Counts every user's use up to `monotonic`.
    mutating func advanceAllUsers(to monotonic: Int64, clockOffset: Int64, into actions: inout [Action]) {
        for index in users.indices { advanceUser(index, to: monotonic, clockOffset: clockOffset, into: &actions) }
    }

    /// Counts one user's use from where it stands up to `monotonic`, in pieces over which their sessions' samples
    /// stay the same, firing the warnings and thresholds that the use reaches.
    mutating func advanceUser(_ index: Int, to monotonic: Int64, clockOffset: Int64, into actions: inout [Action]) {
        guard let from = users[index].countedUntil else {
            users[index].countedUntil = monotonic
            return
        }
        guard monotonic > from else { return }
        var instant = from
        while instant < monotonic {
            if instant >= users[index].usesValidUntil {
                users[index].rebuildUses(at: instant, holdLimit: holdLimit)
            }
            let pieceEnd = min(monotonic, users[index].usesValidUntil)
            if users[index].counting {
                credit(index, from: instant, length: pieceEnd - instant, clockOffset: clockOffset, into: &actions)
            }
            instant = pieceEnd
        }
        users[index].countedUntil = monotonic
    }

    /// Adds `length` nanoseconds of the user's current use to every counter it counts toward and to the ledger.
    mutating func credit(
        _ index: Int, from start: Int64, length: Int64, clockOffset: Int64, into actions: inout [Action]
    ) {
        updateMatching(index)
        var crossings: [UserState.Crossing] = []
        let matching = users[index].matching
        users[index].credit(length, to: matching, crossings: &crossings)
        if !crossings.isEmpty {
            // Several points inside one piece of use come in the order use reached them.
            if crossings.count > 1 { crossings.sort { $0.offset < $1.offset } }
            let user = users[index].user
            for crossing in crossings {
                guard let activity = activities[crossing.slot] else { continue }
                let event = activity.events[crossing.event].name
                actions.append(
                    crossing.isWarning
                        ? .eventWillReachThresholdWarning(event, activity: activity.name, user: user)
                        : .eventDidReachThreshold(event, activity: activity.name, user: user))
            }
            users[index].nextCrossingIsStale = true
            durableStateChanged = true
        }
        let wallStart = start + clockOffset
        users[index].ledger.record(start: wallStart, length: length, uses: users[index].uses)
        users[index].ledger.prune(endingBefore: wallStart - retention)
    }

    /// Rebuilds the list of counters the user's current use counts toward, if activities or use changed since.
    mutating func updateMatching(_ index: Int) {
        guard
            users[index].matchingTopology != topology || users[index].matchingGeneration != users[index].usesGeneration
        else { return }
        var matching: [UserState.CounterReference] = []
        let uses = users[index].uses
        let user = users[index].user
        for slot in orderedSlots {
            guard let activity = activities[slot], activity.isInInterval, activity.registration.applies(to: user)
            else { continue }
            users[index].reserveCounters(slot: slot, count: activity.events.count)
            for (position, event) in activity.events.enumerated() where event.event.counts(uses) {
                matching.append(
                    UserState.CounterReference(
                        slot: slot, event: position, serial: activity.serial, threshold: event.threshold,
                        warningPoint: event.warningPoint))
            }
        }
        users[index].matching = matching
        users[index].matchingTopology = topology
        users[index].matchingGeneration = users[index].usesGeneration
        users[index].nextCrossingIsStale = true
    }

    /// When, at the earliest, one of the user's counters reaches its next point if use goes on as it is.
    mutating func computeNextCrossing(_ index: Int) {
        users[index].nextCrossingIsStale = false
        users[index].nextCrossing = nil
        guard let countedUntil = users[index].countedUntil else { return }
        if countedUntil >= users[index].usesValidUntil {
            users[index].rebuildUses(at: countedUntil, holdLimit: holdLimit)
        }
        guard users[index].counting else { return }
        updateMatching(index)
        users[index].nextCrossingIsStale = false
        var earliest: Int64?
        for reference in users[index].matching {
            let counter = users[index].counter(slot: reference.slot, event: reference.event, serial: reference.serial)
            let point: Int64
            if !counter.warned, let warningPoint = reference.warningPoint {
                point = warningPoint
            } else if !counter.reached {
                point = reference.threshold
            } else {
                continue
            }
            let remaining = max(point - counter.used, 0)
            earliest = min(earliest ?? remaining, remaining)
        }
        // If a sample goes stale first, the wake-up finds nothing reached and asks again: harmless.
        users[index].nextCrossing = earliest.map { countedUntil + $0 }
    }
}

extension EngineCore {
    /// A user's counter for an event as it stands at `monotonic`, counting the use held since the user's last event
    /// without changing anything; what a query reports.
    func projectedCounter(user index: Int, slot: Int, event position: Int, at monotonic: Int64) -> UserState.Counter {
        guard let activity = activities[slot], activity.isInInterval else { return UserState.Counter() }
        var user = users[index]
        guard user.counters.count > slot, user.counters[slot].count > position else { return UserState.Counter() }
        var counter = user.counter(slot: slot, event: position, serial: activity.serial)
        guard let from = user.countedUntil, monotonic > from, activity.registration.applies(to: user.user) else {
            return counter
        }
        // The same pieces as `advanceUser`, on a copy whose sessions' caches alone change.
        var instant = from
        while instant < monotonic {
            if instant >= user.usesValidUntil { user.rebuildUses(at: instant, holdLimit: holdLimit) }
            let pieceEnd = min(monotonic, user.usesValidUntil)
            if user.counting, activity.events[position].event.counts(user.uses) { counter.used += pieceEnd - instant }
            instant = pieceEnd
        }
        return counter
    }
}
