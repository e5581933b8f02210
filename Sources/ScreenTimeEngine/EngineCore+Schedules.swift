import ScreenTimeModel

import struct Foundation.TimeZone

extension EngineCore {
    // MARK: - Monitoring

    /// The longest threshold or warning time: more than any interval holds (a week at most for apps), far from the
    /// engine's arithmetic's limits (nanoseconds in 64 bits: 292 years).
    static let longestSpan = Duration.seconds(366 * 86_400)

    /// Why `registration` cannot be monitored at `now`, or nothing.
    func validate(_ registration: ActivityRegistration, at now: Now) throws(MonitoringError) {
        let schedule = registration.schedule
        if let reason = schedule.intervalStart.invalidityReason {
            throw .invalidDateComponents(reason: "intervalStart: \(reason)")
        }
        if let reason = schedule.intervalEnd.invalidityReason {
            throw .invalidDateComponents(reason: "intervalEnd: \(reason)")
        }
        if let warning = schedule.warningTime, warning < .zero {
            throw .invalidDateComponents(reason: "warningTime must not be negative")
        }
        if let warning = schedule.warningTime, warning > Self.longestSpan {
            throw .invalidDateComponents(reason: "warningTime must be at most 366 days")
        }
        for (name, event) in registration.events.sorted(by: { $0.key < $1.key }) {
            if event.threshold <= .zero {
                throw .invalidDateComponents(reason: "the threshold of event \(name) must be positive")
            }
            if event.threshold > Self.longestSpan {
                throw .invalidDateComponents(reason: "the threshold of event \(name) must be at most 366 days")
            }
        }
        if let limit = configuration.maximumActivities, slotByName[registration.name] == nil,
            slotByName.count >= limit
        {
            throw .excessiveActivities(limit: limit)
        }
        guard
            let interval = schedule.currentOrNextInterval(
                at: now.wallClock, in: zone, longestInterval: configuration.maximumIntervalLength)
        else {
            throw .invalidDateComponents(
                reason: "the schedule has no interval after \(zone.localTime(at: now.wallClock))")
        }
        let length = interval.localLength
        if let minimum = configuration.minimumIntervalLength, length < minimum {
            throw .intervalTooShort(length: length, minimum: minimum)
        }
        if let maximum = configuration.maximumIntervalLength, length > maximum {
            throw .intervalTooLong(length: length, maximum: maximum)
        }
    }

    mutating func startMonitoring(_ registration: ActivityRegistration, at now: Now, into actions: inout [Action]) {
        do {
            try validate(registration, at: now)
        } catch {
            actions.append(.monitoringRefused(registration.name, error))
            return
        }
        advanceAllUsers(to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
        stopMonitoring(registration.name, into: &actions)
        durableStateChanged = true

        let slot = activities.firstIndex { $0 == nil } ?? activities.count
        let serial = takeSerial()
        let phase: ActivityState.Phase
        let startedInside: ScheduledInterval?
        if let interval = registration.schedule.interval(containing: now.wallClock, in: zone) {
            phase = .inInterval(interval)
            startedInside = interval
        } else {
            let local = zone.localTime(at: now.wallClock)
            guard
                let next = registration.schedule.firstInterval(
                    startingAtOrAfter: local, endingAfter: now.wallClock, in: zone,
                    longestInterval: configuration.maximumIntervalLength)
            else { return }
            phase = .waiting(next, since: now.wallClock, lowerBound: local)
            startedInside = nil
        }
        let activity = ActivityState(registration: registration, phase: phase, serial: serial)
        if slot == activities.count { activities.append(activity) } else { activities[slot] = activity }
        slotByName[registration.name] = slot
        orderedSlots.append(slot)
        orderedSlots.sort { activities[$0]!.name < activities[$1]!.name }
        topology &+= 1

        if let interval = startedInside {
            actions.append(.intervalDidStart(registration.name))
            countPastActivity(of: slot, since: interval.start, until: now.wallClock, into: &actions)
        }
        processActivity(slot, at: now.wallClock, into: &actions)
        recomputeScheduleDeadline()
    }

    /// Sets the counters of events with `includesPastActivity` to the use each user made since the interval began.
    mutating func countPastActivity(
        of slot: Int, since start: WallClockInstant, until end: WallClockInstant, into actions: inout [Action]
    ) {
        guard let activity = activities[slot] else { return }
        for index in users.indices where activity.registration.applies(to: users[index].user) {
            users[index].reserveCounters(slot: slot, count: activity.events.count)
            for (position, slotEvent) in activity.events.enumerated() where slotEvent.event.includesPastActivity {
                let used = users[index].ledger.usage(
                    from: start.nanosecondsSince1970, to: end.nanosecondsSince1970, countedBy: slotEvent.event)
                var counter = UserState.Counter(serial: activity.serial, used: used)
                let user = users[index].user
                if let point = slotEvent.warningPoint, used > 0, used >= point {
                    counter.warned = true
                    actions.append(.eventWillReachThresholdWarning(slotEvent.name, activity: activity.name, user: user))
                }
                if used >= slotEvent.threshold {
                    counter.reached = true
                    actions.append(.eventDidReachThreshold(slotEvent.name, activity: activity.name, user: user))
                }
                users[index].counters[slot][position] = counter
            }
            users[index].nextCrossingIsStale = true
        }
    }

    /// Stops one activity, ending its interval if one is in progress.
    mutating func stopMonitoring(_ name: DeviceActivityName, into actions: inout [Action]) {
        guard let slot = slotByName[name], let activity = activities[slot] else { return }
        if activity.isInInterval { actions.append(.intervalDidEnd(name)) }
        remove(slot)
    }

    mutating func remove(_ slot: Int) {
        guard let activity = activities[slot] else { return }
        activities[slot] = nil
        slotByName[activity.name] = nil
        orderedSlots.removeAll { $0 == slot }
        topology &+= 1
        durableStateChanged = true
    }

    mutating func takeSerial() -> UInt64 {
        defer { nextSerial &+= 1 }
        return nextSerial
    }

    // MARK: - Schedules

    /// Runs every activity's due boundaries and warnings at wall-clock `instant`, in the order of their names.
    mutating func processSchedules(at instant: WallClockInstant, into actions: inout [Action]) {
        for slot in orderedSlots { processActivity(slot, at: instant, into: &actions) }
        recomputeScheduleDeadline()
    }

    /// Moves one activity's schedule to wall-clock `instant`: gives the warnings that are due, ends and starts
    /// intervals. A warning comes only while its boundary is still ahead, never before the wait or the interval it
    /// belongs to began; an interval lying wholly before `instant` (jumped over) is skipped without callbacks.
    mutating func processActivity(_ slot: Int, at instant: WallClockInstant, into actions: inout [Action]) {
        while var activity = activities[slot] {
            let warning = activity.schedule.warningTime
            switch activity.phase {
            case .waiting(let interval, let since, _):
                if instant >= interval.end {
                    guard activity.schedule.repeats,
                        let next = nextInterval(after: interval, of: activity.schedule, endingAfter: instant)
                    else {
                        remove(slot)
                        return
                    }
                    activity.phase = .waiting(next, since: instant, lowerBound: interval.localEnd)
                    activity.warningGiven = false
                } else if instant >= interval.start {
                    activity.phase = .inInterval(interval)
                    activity.serial = takeSerial()
                    activity.warningGiven = false
                    topology &+= 1
                    durableStateChanged = true
                    actions.append(.intervalDidStart(activity.name))
                } else if let warning, !activity.warningGiven, instant >= max(interval.start - warning, since) {
                    activity.warningGiven = true
                    durableStateChanged = true
                    actions.append(.intervalWillStartWarning(activity.name))
                    activities[slot] = activity
                    return
                } else {
                    return
                }
            case .inInterval(let interval):
                if instant >= interval.end {
                    actions.append(.intervalDidEnd(activity.name))
                    topology &+= 1
                    durableStateChanged = true
                    guard activity.schedule.repeats,
                        let next = nextInterval(after: interval, of: activity.schedule, endingAfter: instant)
                    else {
                        remove(slot)
                        return
                    }
                    activity.phase = .waiting(next, since: interval.end, lowerBound: interval.localEnd)
                    activity.warningGiven = false
                } else if let warning, !activity.warningGiven, instant >= max(interval.end - warning, interval.start) {
                    activity.warningGiven = true
                    durableStateChanged = true
                    actions.append(.intervalWillEndWarning(activity.name))
                    activities[slot] = activity
                    return
                } else {
                    return
                }
            }
            activities[slot] = activity
        }
    }

    /// The interval after `interval`: the first to start at or after its local end and to end after `instant`.
    func nextInterval(
        after interval: ScheduledInterval, of schedule: ActivitySchedule, endingAfter instant: WallClockInstant
    ) -> ScheduledInterval? {
        schedule.firstInterval(
            startingAtOrAfter: interval.localEnd, endingAfter: instant, in: zone,
            longestInterval: configuration.maximumIntervalLength)
    }

    mutating func recomputeScheduleDeadline() {
        var earliest: WallClockInstant?
        for slot in orderedSlots {
            if let deadline = activities[slot]?.deadline { earliest = min(earliest ?? deadline, deadline) }
        }
        scheduleDeadline = earliest
    }

    // MARK: - Time zones

    /// Places every interval in the new zone by its local times, so that no interval starts twice, then runs what
    /// became due. An interval in progress ends at its local end in the new zone.
    mutating func changeTimeZone(to newZone: TimeZone, at now: Now, into actions: inout [Action]) {
        advanceAllUsers(to: now.monotonic.nanoseconds, clockOffset: now.clockOffset, into: &actions)
        guard newZone != timeZone else { return }
        timeZone = newZone
        durableStateChanged = true
        let zone = self.zone
        for slot in orderedSlots {
            guard var activity = activities[slot] else { continue }
            switch activity.phase {
            case .inInterval(let interval):
                var moved = interval
                moved.start = zone.firstInstant(atOrAfter: interval.localStart)
                moved.end = zone.firstInstant(atOrAfter: interval.localEnd)
                activity.phase = .inInterval(moved)
            case .waiting(let interval, let since, let lowerBound):
                guard
                    let next = activity.schedule.firstInterval(
                        startingAtOrAfter: lowerBound, endingAfter: now.wallClock, in: zone,
                        longestInterval: configuration.maximumIntervalLength)
                else {
                    remove(slot)
                    continue
                }
                if next.localStart != interval.localStart { activity.warningGiven = false }
                activity.phase = .waiting(next, since: since, lowerBound: lowerBound)
            }
            activities[slot] = activity
        }
        processSchedules(at: now.wallClock, into: &actions)
    }
}
