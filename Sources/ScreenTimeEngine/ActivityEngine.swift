import ScreenTimeModel

import struct Foundation.TimeZone

/// Apple's DeviceActivity and ManagedSettings semantics as a pure, deterministic state machine.
///
/// It owns the monitored activities (name → schedule and events), each user's use counted per interval, the
/// warnings and thresholds already given, the users' settings stores and their effective shields. It reads no
/// clock, does no I/O and logs nothing: time comes in with each event as a `Now`, and what must happen leaves as
/// `Action`s, deadlines included (`.scheduleWakeUp`). Use is measured on the monotonic clock, so suspend and
/// clock changes never count; schedules are evaluated in local wall-clock time in `timeZone`.
///
/// ```swift
/// var engine = ActivityEngine(timeZone: .current)
/// for action in engine.handle(.startMonitoring(registration), at: now) { perform(action) }
/// for action in engine.handle(.sample(sample), at: now) { perform(action) }
/// ```
///
/// Usage model: a session's sample holds from its instant until the session's next sample (at most
/// `EngineConfiguration.sampleHoldLimit`), and the time counts when the session is active. A user's time counts
/// once however many sessions and apps are in front. `eventDidReachThreshold` fires while handling the first event
/// (a sample or the requested wake-up) at which the user's counted use reaches the threshold, and once per
/// interval; `eventWillReachThresholdWarning` likewise at threshold − `warningTime`.
public struct ActivityEngine: Sendable {
    var core: EngineCore

    /// An engine with nothing monitored, evaluating schedules in `timeZone`.
    public init(configuration: EngineConfiguration = .appleDefaults, timeZone: TimeZone) {
        core = EngineCore(configuration: configuration, timeZone: timeZone)
    }

    /// An engine in exactly the state `snapshot` was taken in.
    ///
    /// A daemon that restarts (after a crash, or after a reboot) should then handle `.sessionsUnknown` first, so
    /// that the time it was away counts for nobody.
    public init(restoring snapshot: EngineSnapshot) {
        core = snapshot.core
    }

    /// Handles one event at `now` and returns what to do, in order.
    ///
    /// `now` must not go back on the monotonic clock between calls, except across a reboot under a restored
    /// snapshot, which the engine recognises.
    public mutating func handle(_ event: Event, at now: Now) -> [Action] {
        var actions: [Action] = []
        core.handle(event, at: now, into: &actions)
        return actions
    }

    /// The state to persist, from which `init(restoring:)` continues exactly.
    public func snapshot() -> EngineSnapshot { EngineSnapshot(core: core) }

    /// The limits in force.
    public var configuration: EngineConfiguration { core.configuration }

    /// The time zone schedules are evaluated in.
    public var timeZone: TimeZone { core.timeZone }

    /// Checks that `registration` could be monitored at `now` without changing anything; the same checks
    /// `.startMonitoring` makes.
    public func validate(_ registration: ActivityRegistration, at now: Now) throws(MonitoringError) {
        try core.validate(registration, at: now)
    }
}
