import Foundation
import ScreenTimeModel

@testable import ScreenTimeEngine

/// Drives an engine through days of synthetic use the way a daemon would, but without waiting: each user follows
/// a daily routine of samples at local times, and every wake-up the engine asks for is honoured at its instant.
/// Samples come only when something changes, so the engine holds each one until the next (an event-driven
/// collector); a month runs in milliseconds.
struct Simulation {
    /// From a local time of day on, a user's session shows `uses` with `presence`.
    struct RoutineStep {
        var user: UserID
        var hour: Int
        var minute: Int
        var uses: [AppUse]
        var presence: SessionPresence = .active
    }

    var engine: ActivityEngine
    let zone: TimeZone
    let routine: [RoutineStep]
    /// Wall-clock minus monotonic nanoseconds: constant, as nobody sets the clock here.
    let clockOffset: Int64
    /// Every action with the wall-clock instant it came at.
    private(set) var log: [(instant: WallClockInstant, action: ActivityEngine.Action)] = []
    private(set) var handledEvents = 0

    init(zone: TimeZone, routine: [RoutineStep], activities: [ActivityRegistration], at start: WallClockInstant) {
        var configuration = EngineConfiguration.appleDefaults
        configuration.sampleHoldLimit = .seconds(2 * 86_400)
        engine = ActivityEngine(configuration: configuration, timeZone: zone)
        self.zone = zone
        self.routine = routine
        clockOffset = start.nanosecondsSince1970 - 1_000_000_000
        for activity in activities { handle(.startMonitoring(activity), at: start) }
    }

    mutating func handle(_ event: ActivityEngine.Event, at instant: WallClockInstant) {
        let now = Now(
            monotonic: MonotonicInstant(nanoseconds: instant.nanosecondsSince1970 - clockOffset), wallClock: instant)
        handledEvents += 1
        for action in engine.handle(event, at: now) { log.append((instant, action)) }
    }

    /// Runs the routine on every day from `firstDay` through `lastDay` (local dates).
    mutating func run(days: ClosedRange<Int>, month: Int, year: Int) {
        var samples: [(WallClockInstant, UsageSample)] = []
        for day in days {
            for step in routine {
                let instant = wall(year, month, day, step.hour, step.minute, in: zone)
                let sample = UsageSample(
                    user: step.user, session: SessionID("\(step.user)"), presence: step.presence,
                    applicationsInUse: step.uses)
                samples.append((instant, sample))
            }
        }
        samples.sort { $0.0 < $1.0 }
        for (instant, sample) in samples {
            wakeUps(before: instant)
            handle(.sample(sample), at: instant)
        }
    }

    /// Honours every wake-up the engine asks for before `instant`.
    private mutating func wakeUps(before instant: WallClockInstant) {
        while let wakeUp = engine.requestedWakeUp {
            let wakeUpInstant = WallClockInstant(nanosecondsSince1970: wakeUp.nanoseconds + clockOffset)
            guard wakeUpInstant < instant else { return }
            handle(.wakeUp, at: wakeUpInstant)
        }
    }

    /// The local times at which an action came.
    func localTimes(of action: ActivityEngine.Action) -> [LocalTime] {
        let rules = ZoneRules(timeZone: zone)
        return log.filter { $0.action == action }.map { rules.localTime(at: $0.instant) }
    }
}
