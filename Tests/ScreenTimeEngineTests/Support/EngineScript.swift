import Foundation
import ScreenTimeModel

@testable import ScreenTimeEngine

typealias Action = ActivityEngine.Action

let newYork = TimeZone(identifier: "America/New_York")!
let berlin = TimeZone(identifier: "Europe/Berlin")!
let utc = TimeZone(identifier: "UTC")!

/// An app in front, by a short name: its token is the name, its category's token the category's name.
func use(_ app: String, category: String = "games") -> AppUse {
    AppUse(application: ApplicationToken(rawValue: app), category: ActivityCategoryToken(rawValue: category))
}

func app(_ name: String) -> ApplicationToken { ApplicationToken(rawValue: name) }
func category(_ name: String) -> ActivityCategoryToken { ActivityCategoryToken(rawValue: name) }

let alice = UserID(1001)
let bob = UserID(1002)

/// The wall-clock instant of a local time in a zone (the first one, if the local time repeats).
func wall(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0, _ second: Int = 0, in zone: TimeZone)
    -> WallClockInstant
{
    ZoneRules(timeZone: zone).firstInstant(
        atOrAfter: LocalTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
}

func pattern(weekday: Int? = nil, hour: Int? = nil, minute: Int? = nil, second: Int? = nil) -> CalendarPattern {
    CalendarPattern(weekday: weekday, hour: hour, minute: minute, second: second)
}

func daily(
    _ name: DeviceActivityName = "daily", from start: CalendarPattern = pattern(hour: 0),
    to end: CalendarPattern = pattern(hour: 23, minute: 59), repeats: Bool = true, warning: Duration? = nil,
    events: [ActivityEventName: ActivityEvent] = [:], users: Set<UserID>? = nil
) -> ActivityRegistration {
    ActivityRegistration(
        name: name,
        schedule: ActivitySchedule(intervalStart: start, intervalEnd: end, repeats: repeats, warningTime: warning),
        events: events, users: users)
}

/// Drives an engine through a script: both clocks advance together unless a step says otherwise.
struct EngineScript {
    var engine: ActivityEngine
    var now: Now
    /// Every action returned so far, in order.
    var log: [Action] = []

    init(
        at start: WallClockInstant, in zone: TimeZone, configuration: EngineConfiguration = .appleDefaults,
        monotonic: Duration = .seconds(1_000)
    ) {
        engine = ActivityEngine(configuration: configuration, timeZone: zone)
        now = Now(monotonic: MonotonicInstant(sinceBoot: monotonic), wallClock: start)
    }

    /// Handles an event at the current time and returns its actions.
    @discardableResult
    mutating func handle(_ event: ActivityEngine.Event) -> [Action] {
        let actions = engine.handle(event, at: now)
        log += actions
        return actions
    }

    /// Lets time pass on both clocks, then handles `event` (a wake-up by default).
    @discardableResult
    mutating func advance(_ span: Duration, then event: ActivityEngine.Event = .wakeUp) -> [Action] {
        now.monotonic = now.monotonic + span
        now.wallClock = now.wallClock + span
        return handle(event)
    }

    /// Lets time pass up to a wall-clock instant, then handles `event`.
    @discardableResult
    mutating func advance(to instant: WallClockInstant, then event: ActivityEngine.Event = .wakeUp) -> [Action] {
        advance(instant - now.wallClock, then: event)
    }

    /// Sets the wall clock without moving the monotonic one (someone set the clock).
    @discardableResult
    mutating func setWallClock(to instant: WallClockInstant) -> [Action] {
        now.wallClock = instant
        return handle(.wallClockChanged)
    }

    /// Suspends for `span` of wall-clock time: the monotonic clock stands still.
    mutating func suspend(for span: Duration) -> [Action] {
        var actions = handle(.systemWillSuspend)
        now.wallClock = now.wallClock + span
        actions += handle(.systemDidResume)
        return actions
    }

    /// A sample of one session at the current time.
    @discardableResult
    mutating func sample(
        _ user: UserID, _ uses: [AppUse], presence: SessionPresence = .active, session: String = "1"
    ) -> [Action] {
        handle(
            .sample(
                UsageSample(
                    user: user, session: SessionID("\(user)-\(session)"), presence: presence, applicationsInUse: uses)))
    }

    /// Samples every second for `seconds` seconds, the first one a second from now; returns the callbacks.
    mutating func use(
        _ user: UserID, _ uses: [AppUse], forSeconds seconds: Int, presence: SessionPresence = .active
    ) -> [Action] {
        var callbacks: [Action] = []
        for _ in 0..<seconds {
            now.monotonic = now.monotonic + .seconds(1)
            now.wallClock = now.wallClock + .seconds(1)
            callbacks += sample(user, uses, presence: presence).filter(\.isMonitorCallback)
        }
        return callbacks
    }

    /// The monitor callbacks among `actions`.
    static func callbacks(_ actions: [Action]) -> [Action] { actions.filter(\.isMonitorCallback) }

    func used(_ event: ActivityEventName, in activity: DeviceActivityName = "daily", by user: UserID = alice)
        -> Duration?
    {
        engine.usage(of: event, in: activity, for: user)?.used
    }
}

extension Array where Element == Action {
    var callbacks: [Action] { filter(\.isMonitorCallback) }
}
