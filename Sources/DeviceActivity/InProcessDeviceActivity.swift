import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import Synchronization

/// An engine run inside this process, for programs that count use themselves and for tests: activities started
/// through a `DeviceActivityCenter` on it are validated and monitored by the engine, and `handle(_:at:)` drives
/// it with samples and wake-ups.
public final class InProcessDeviceActivity: DeviceActivityConnection {
    /// One engine for a whole test process.
    public static let shared = InProcessDeviceActivity(engine: ActivityEngine(timeZone: .current))

    private struct State {
        var engine: ActivityEngine
        var activities: [DeviceActivityName: MonitoredActivity] = [:]
        /// Actions produced by calls from the center, waiting for `takeActions()`.
        var pending: [ActivityEngine.Action] = []
    }

    private let state: Mutex<State>
    private let clock: @Sendable () -> Now

    /// A connection over `engine`, reading the time from `clock` when a center starts or stops an activity.
    public init(engine: ActivityEngine, clock: @escaping @Sendable () -> Now = Now.system) {
        state = Mutex(State(engine: engine))
        self.clock = clock
    }

    public func startMonitoring(_ activity: MonitoredActivity) throws {
        let now = clock()
        let refusal: MonitoringError? = state.withLock { state in
            do throws(MonitoringError) {
                try state.engine.validate(activity.registration, at: now)
            } catch {
                return error
            }
            state.pending += state.engine.handle(.startMonitoring(activity.registration), at: now)
            state.activities[activity.name] = activity
            return nil
        }
        if let refusal { throw refusal }
    }

    public func stopMonitoring(_ activities: [DeviceActivityName]) {
        let now = clock()
        state.withLock { state in
            let names = activities.isEmpty ? Array(state.activities.keys) : activities
            state.pending += state.engine.handle(.stopMonitoring(names), at: now)
            for name in names { state.activities[name] = nil }
        }
    }

    public func monitoredActivities() -> [MonitoredActivity] {
        state.withLock { state in
            state.engine.activities.compactMap { state.activities[$0] }
        }
    }

    /// Hands an event to the engine and returns what to do, after the actions of earlier center calls.
    public func handle(_ event: ActivityEngine.Event, at now: Now) -> [ActivityEngine.Action] {
        state.withLock { state in
            let actions = state.pending + state.engine.handle(event, at: now)
            state.pending = []
            return actions
        }
    }

    /// The actions produced by center calls since the last `handle` or `takeActions`.
    public func takeActions() -> [ActivityEngine.Action] {
        state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }

    /// Reads the engine under the lock (its queries: usage, intervals, shields).
    public func withEngine<Result>(_ body: (ActivityEngine) -> Result) -> Result {
        state.withLock { body($0.engine) }
    }
}
