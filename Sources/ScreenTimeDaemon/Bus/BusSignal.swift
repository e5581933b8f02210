import ScreenTimeBus
import ScreenTimeModel

/// A signal the daemon broadcasts from its object; queued by the engine loop, sent by the bus thread.
public enum BusSignal: Hashable, Sendable {
    /// `Activities1.Callback(user, client, callback, activity, event)`: a monitor callback of a client's activity
    /// (`event` empty for interval callbacks).
    case callback(user: UserID, client: AppID, callback: MonitorCallback, activity: String, event: String)
    /// `Settings1.ShieldChanged(user, shield_json)`: a user's effective shield changed.
    case shieldChanged(user: UserID, json: String)
    /// `Daemon1.Notification(user, kind, limit, title, body, secondary)`: a warning (`warning`) or a limit's shield
    /// (`shield`, or `shield-ask` when its secondary button asks the guardian) for the user's agent to show.
    case notification(user: UserID, kind: String, limit: String, title: String, body: String, secondary: String)
    /// `Daemon1.RequestFiled(request_json)`: a limited user asked for more time.
    case requestFiled(TimeRequest)
    /// `Daemon1.RequestAnswered(request_json)`: a guardian approved or denied a request.
    case requestAnswered(TimeRequest)
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` for `Daemon1`'s changing properties.
    case daemonPropertiesChanged
}
