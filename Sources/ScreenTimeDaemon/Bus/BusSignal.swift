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

extension BusSignal {
    /// Whether the signal is for connections of `uid` where signals go only to whom they concern (guardian mode, on
    /// the system bus every user listens to): a user's callbacks, shield and notifications go to that user alone, a
    /// request filed to the guardians, its answer to its user and the guardians; the daemon's properties (which any
    /// caller may read) to everyone.
    func concerns(_ uid: UInt32, isGuardian: (UInt32) -> Bool) -> Bool {
        switch self {
        case .callback(let user, _, _, _, _), .shieldChanged(let user, _), .notification(let user, _, _, _, _, _):
            user.rawValue == uid
        case .requestFiled: isGuardian(uid)
        case .requestAnswered(let request): request.user == uid || isGuardian(uid)
        case .daemonPropertiesChanged: true
        }
    }

    /// Whether the signal goes to every listener, wherever signals are targeted: the daemon's properties.
    var isForEveryone: Bool {
        if case .daemonPropertiesChanged = self { true } else { false }
    }
}
