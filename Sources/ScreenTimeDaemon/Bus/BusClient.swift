import ScreenTimeEngine
import ScreenTimeModel

/// A client of the daemon's D-Bus API: a user's app, as the daemon identified the calling process. Its activities
/// and settings stores are its own: the engine sees them under names prefixed with the client, so two apps may
/// both have a store `default`.
public struct BusClient: Hashable, Sendable, CustomStringConvertible {
    public var user: UserID
    public var app: AppID

    /// The client `app` of `user`.
    public init(user: UserID, app: AppID) {
        self.user = user
        self.app = app
    }

    private static let prefix = "client/"

    /// The engine's name of this client's activity `name`: `client/UID/APP/NAME`.
    public func engineName(ofActivity name: String) -> DeviceActivityName {
        DeviceActivityName(Self.prefix + "\(user.rawValue)/\(app.rawValue)/" + name)
    }

    /// The engine's name of this client's settings store `name`: `client/UID/APP/NAME`.
    public func engineName(ofStore name: String) -> SettingsStoreName {
        SettingsStoreName(Self.prefix + "\(user.rawValue)/\(app.rawValue)/" + name)
    }

    /// The client and its own name of an engine activity named by `engineName(ofActivity:)`; nil for others (the
    /// policy's limits and downtimes).
    public static func parse(_ activity: DeviceActivityName) -> (client: BusClient, name: String)? {
        guard activity.rawValue.hasPrefix(prefix) else { return nil }
        let parts = activity.rawValue.dropFirst(prefix.count).split(
            separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let uid = UInt32(parts[0]), !parts[1].isEmpty else { return nil }
        return (BusClient(user: UserID(uid), app: AppID(String(parts[1]))), String(parts[2]))
    }

    public var description: String { "\(app.rawValue) of uid \(user.rawValue)" }
}

/// What the daemon keeps for its D-Bus clients, in memory (the usage store holds the same, for restarts).
struct ClientRegistry {
    /// An activity as a client started it.
    struct Activity: Hashable {
        /// What the engine runs (under the client's name for it).
        var registration: ActivityRegistration
        /// The JSON the client sent, given back by `Activity(name)`.
        var json: String
    }

    var authorizations: [BusClient: String] = [:]
    var activities: [BusClient: [String: Activity]] = [:]
    var stores: [BusClient: [String: ShieldSettings]] = [:]
}
