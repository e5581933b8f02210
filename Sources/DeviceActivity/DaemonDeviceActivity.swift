import Foundation
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel

/// Activities monitored by `screentimed`, over D-Bus (`org.screentime.Activities1`): what `DeviceActivityCenter()`
/// uses in production. The activities are this app's (the daemon names them after the calling process's app), and
/// outlive the process: another process of the same app sees them with their events.
public final class DaemonDeviceActivity: DeviceActivityConnection {
    /// The connection `DeviceActivityCenter()` uses.
    public static let shared = DaemonDeviceActivity()

    private let connection: DaemonConnection

    /// Activities of the daemon `connection` reaches.
    public init(connection: DaemonConnection = .shared) { self.connection = connection }

    /// Asks the daemon to monitor `activity` (as JSON: `MonitoredActivity`'s `Codable` form).
    ///
    /// - Throws: the daemon's refusal as a `MonitoringError` (`.unauthorized` when the app has not asked for
    ///   authorization or was refused); any other `ScreenTimeBusError` as it is (`.unavailable`: the daemon is not
    ///   running).
    public func startMonitoring(_ activity: MonitoredActivity) throws {
        do {
            let json = try BusJSON.encode(activity)
            _ = try connection.call(.activities, "StartMonitoring", [.string(activity.name.rawValue), .string(json)])
        } catch {
            if let refusal = error.monitoringError { throw refusal }
            if error.code == .notAuthorized { throw MonitoringError.unauthorized }
            throw error
        }
    }

    /// Asks the daemon to stop monitoring the activities (all of the app's when the list is empty); nothing happens
    /// when it can't be reached.
    public func stopMonitoring(_ activities: [DeviceActivityName]) {
        _ = try? connection.call(
            .activities, "StopMonitoring", [.array(elementSignature: "s", activities.map { .string($0.rawValue) })])
    }

    /// This app's monitored activities; empty when the daemon can't be reached.
    public func monitoredActivities() -> [MonitoredActivity] {
        guard case .array(_, let names)? = try? connection.call(.activities, "Activities").first else { return [] }
        return names.compactMap(\.stringValue).compactMap { name in
            guard let json = try? connection.callForString(.activities, "Activity", [.string(name)]) else { return nil }
            return try? BusJSON.decode(MonitoredActivity.self, from: json)
        }
    }
}
