import Foundation
import ScreenTimeEngine
import ScreenTimeModel

/// Starts and stops the monitoring of activities: Apple's `DeviceActivityCenter`.
///
/// ```swift
/// try DeviceActivityCenter().startMonitoring(.daily, during: schedule, events: [.gamesLimit: event])
/// ```
public final class DeviceActivityCenter: Sendable {
    /// Why an activity cannot be monitored; the case says which rule, the payload why.
    public typealias MonitoringError = ScreenTimeEngine.MonitoringError

    private let connection: any DeviceActivityConnection

    /// A center for this app's activities, monitored by `screentimed` (`DaemonDeviceActivity.shared`).
    public convenience init() { self.init(connection: DaemonDeviceActivity.shared) }

    /// A center whose activities `connection` keeps.
    public init(connection: any DeviceActivityConnection) { self.connection = connection }

    /// Starts monitoring `activity` during `schedule`, replacing any monitoring of that name.
    ///
    /// - Throws: `MonitoringError` when a component is invalid, the interval is shorter or longer than allowed,
    ///   there are too many activities, or the app is not authorized; any other refusal as it is
    ///   (`ScreenTimeBusError` from the daemon: `.unavailable` when it isn't running, `.failed` when its store can't
    ///   be written yet, `.invalidArgument` past the user's limits), not taken for one of those.
    public func startMonitoring(
        _ activity: DeviceActivityName, during schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent] = [:]
    ) throws {
        var engineEvents: [ActivityEventName: ActivityEvent] = [:]
        for (name, event) in events { engineEvents[name] = try event.activityEvent() }
        let registration = ActivityRegistration(
            name: activity, schedule: try schedule.activitySchedule(), events: engineEvents)
        try connection.startMonitoring(
            MonitoredActivity(registration: registration, schedule: schedule, events: events))
    }

    /// Stops monitoring the listed activities, or all of them when the list is empty. An interval in progress
    /// ends with `intervalDidEnd`.
    public func stopMonitoring(_ activities: [DeviceActivityName] = []) {
        connection.stopMonitoring(activities)
    }

    /// The activities being monitored.
    public var activities: [DeviceActivityName] { connection.monitoredActivities().map(\.name) }

    /// The schedule of a monitored activity.
    public func schedule(for activity: DeviceActivityName) -> DeviceActivitySchedule? {
        connection.monitoredActivities().first { $0.name == activity }?.schedule
    }

    /// The events of a monitored activity.
    public func events(for activity: DeviceActivityName) -> [DeviceActivityEvent.Name: DeviceActivityEvent] {
        connection.monitoredActivities().first { $0.name == activity }?.events ?? [:]
    }
}

/// An activity as an app asked for it, and as the engine runs it.
public struct MonitoredActivity: Hashable, Sendable, Codable {
    public var registration: ActivityRegistration
    public var schedule: DeviceActivitySchedule
    public var events: [DeviceActivityEvent.Name: DeviceActivityEvent]
    public var name: DeviceActivityName { registration.name }

    public init(
        registration: ActivityRegistration, schedule: DeviceActivitySchedule,
        events: [DeviceActivityEvent.Name: DeviceActivityEvent]
    ) {
        self.registration = registration
        self.schedule = schedule
        self.events = events
    }
}

/// Where monitored activities live: the daemon (over D-Bus) or this process.
public protocol DeviceActivityConnection: Sendable {
    /// Starts or replaces the monitoring of an activity, or says why it cannot.
    func startMonitoring(_ activity: MonitoredActivity) throws
    /// Stops monitoring the named activities, or all of them when the list is empty (also those another client of
    /// the app started, whatever JSON they keep).
    func stopMonitoring(_ activities: [DeviceActivityName])
    /// The activities being monitored, by name.
    func monitoredActivities() -> [MonitoredActivity]
}
