import ScreenTimeModel

/// A monitored activity inside the engine: its registration, where its schedule stands, and the serial of its
/// current interval (usage counters carrying another serial belong to an earlier interval and read as zero).
struct ActivityState: Hashable, Sendable, Codable {
    enum Phase: Hashable, Sendable, Codable {
        /// Between intervals, waiting for `interval`. `since` is when the wait began (the start warning never comes
        /// earlier); `lowerBound` is where the search for `interval` began, kept to redo it in a new time zone.
        case waiting(ScheduledInterval, since: WallClockInstant, lowerBound: LocalTime)
        case inInterval(ScheduledInterval)
    }

    /// One event, its name, and its points on the usage axis in nanoseconds.
    struct EventSlot: Hashable, Sendable, Codable {
        var name: ActivityEventName
        var event: ActivityEvent
        var threshold: Int64
        /// Where `eventWillReachThresholdWarning` fires: threshold − warningTime, at least 0.
        var warningPoint: Int64?
    }

    var registration: ActivityRegistration
    /// The events, sorted by name so that callbacks of one instant come in a stable order.
    var events: [EventSlot]
    var phase: Phase
    var serial: UInt64
    /// Whether the warning before the next boundary (start or end, as the phase says) was given.
    var warningGiven = false

    init(registration: ActivityRegistration, phase: Phase, serial: UInt64) {
        self.registration = registration
        self.phase = phase
        self.serial = serial
        let warning = registration.schedule.warningTime?.nanoseconds
        events = registration.events.sorted { $0.key < $1.key }.map { name, event in
            let threshold = event.threshold.nanoseconds
            return EventSlot(
                name: name, event: event, threshold: threshold, warningPoint: warning.map { max(threshold - $0, 0) })
        }
    }

    var name: DeviceActivityName { registration.name }
    var schedule: ActivitySchedule { registration.schedule }

    var isInInterval: Bool {
        if case .inInterval = phase { return true }
        return false
    }

    /// The earliest wall-clock instant at which this activity has something to do.
    var deadline: WallClockInstant {
        let warning = schedule.warningTime
        switch phase {
        case .waiting(let interval, let since, _):
            if let warning, !warningGiven { return min(max(interval.start - warning, since), interval.start) }
            return interval.start
        case .inInterval(let interval):
            if let warning, !warningGiven { return min(max(interval.end - warning, interval.start), interval.end) }
            return interval.end
        }
    }
}
