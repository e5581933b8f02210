// Samples per second through the engine: 20 activities of 5 events each, 3 users with one session each, one sample
// per user per second, apps switching every 30 s. Prints `engine.samples_per_second <value> 1/s`.
import Foundation
import ScreenTimeEngine
import ScreenTimeModel

let users = [UserID(1001), UserID(1002), UserID(1003)]
let categories = ["games", "social", "education", "productivity-finance"].map(ActivityCategoryToken.init(rawValue:))
// Token-like strings: 64 hex characters, as HMAC tokens are.
let apps: [AppUse] = (0..<12).map { index in
    let token = String(repeating: String(format: "%02x", index * 17 % 256), count: 32)
    return AppUse(application: ApplicationToken(rawValue: token), category: categories[index % categories.count])
}

func registrations() -> [ActivityRegistration] {
    let schedules = [
        ActivitySchedule(
            intervalStart: CalendarPattern(hour: 0), intervalEnd: CalendarPattern(hour: 0), repeats: true,
            warningTime: .seconds(300)),
        ActivitySchedule(
            intervalStart: CalendarPattern(hour: 22), intervalEnd: CalendarPattern(hour: 7), repeats: true),
        ActivitySchedule(
            intervalStart: CalendarPattern(hour: 8), intervalEnd: CalendarPattern(hour: 20), repeats: true,
            warningTime: .seconds(600)),
        ActivitySchedule(
            intervalStart: CalendarPattern(weekday: 2, hour: 0), intervalEnd: CalendarPattern(weekday: 2, hour: 0),
            repeats: true),
    ]
    return (0..<20).map { index in
        var events: [ActivityEventName: ActivityEvent] = [:]
        for event in 0..<5 {
            let threshold = Duration.seconds(600 * (event + 1) * (index % 3 + 1))
            let chosen: ActivityEvent
            switch event {
            case 0: chosen = ActivityEvent(threshold: threshold)
            case 1: chosen = ActivityEvent(categories: [categories[index % categories.count]], threshold: threshold)
            default:
                chosen = ActivityEvent(
                    applications: [
                        apps[(index + event) % apps.count].application,
                        apps[(index * 3 + event) % apps.count].application,
                    ],
                    categories: event == 4 ? [categories[(index + 1) % categories.count]] : [], threshold: threshold)
            }
            events[ActivityEventName("event\(event)")] = chosen
        }
        return ActivityRegistration(
            name: DeviceActivityName("activity\(index)"), schedule: schedules[index % schedules.count], events: events)
    }
}

func run(samples: Int) -> (seconds: Double, callbacks: Int) {
    var engine = ActivityEngine(timeZone: TimeZone(identifier: "Europe/Berlin")!)
    var monotonic: Int64 = 1_000_000_000
    var wall: Int64 = 1_748_995_200_000_000_000  // 2025-06-04T00:00:00Z
    var callbacks = 0
    func now() -> Now {
        Now(
            monotonic: MonotonicInstant(nanoseconds: monotonic), wallClock: WallClockInstant(nanosecondsSince1970: wall)
        )
    }
    for registration in registrations() { callbacks += engine.handle(.startMonitoring(registration), at: now()).count }
    let sessions = users.map { SessionID("session-\($0)") }
    var inFront = [[apps[0]], [apps[1]], [apps[2]]]
    let clock = ContinuousClock()
    let started = clock.now
    for index in 0..<samples {
        let user = index % users.count
        // One round of three samples per second, a third of a second apart.
        monotonic += 333_333_333
        wall += 333_333_333
        let second = index / users.count
        if second % 30 == 0, user == 0 {
            inFront = (0..<users.count).map { [apps[(second / 30 + $0 * 5) % apps.count]] }
        }
        let sample = UsageSample(
            user: users[user], session: sessions[user], presence: second % 600 < 540 ? .active : .idle,
            applicationsInUse: inFront[user])
        callbacks += engine.handle(.sample(sample), at: now()).count
    }
    let elapsed = clock.now - started
    let (seconds, attoseconds) = elapsed.components
    return (Double(seconds) + Double(attoseconds) / 1e18, callbacks)
}

let samples = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 3_000_000 : 3_000_000
_ = run(samples: samples / 10)  // warm-up
let result = run(samples: samples)
let days = samples / users.count / 86_400
let summary = "engine: \(samples) samples (\(days) simulated days), \(result.callbacks) actions, \(result.seconds) s\n"
FileHandle.standardError.write(Data(summary.utf8))
print("engine.samples_per_second \(Int(Double(samples) / result.seconds)) 1/s")
