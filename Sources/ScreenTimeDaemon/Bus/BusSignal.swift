import ScreenTimeModel

/// A signal the daemon broadcasts from its object; queued by the engine loop, sent by the bus thread.
public enum BusSignal: Hashable, Sendable {
    /// `Activities1.Callback(user, client, callback, activity, event)`: a monitor callback of a client's activity
    /// (`event` empty for interval callbacks).
    case callback(user: UserID, client: AppID, callback: MonitorCallback, activity: String, event: String)
    /// `Settings1.ShieldChanged(user, shield_json)`: a user's effective shield changed.
    case shieldChanged(user: UserID, json: String)
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` for `Daemon1`'s changing properties.
    case daemonPropertiesChanged
}
