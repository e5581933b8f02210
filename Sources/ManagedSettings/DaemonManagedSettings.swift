import Foundation
import ScreenTimeBus
import ScreenTimeModel
import Synchronization

/// Settings stores kept by `screentimed`, over D-Bus (`org.screentime.Settings1`): what `ManagedSettingsStore()`
/// uses in production. The stores are this app's: the daemon names them after the calling process's app, so two
/// apps may both have a store `default`; it enforces their shields and keeps them across restarts.
public final class DaemonManagedSettings: ManagedSettingsConnection {
    /// The connection `ManagedSettingsStore(named:)` uses.
    public static let shared = DaemonManagedSettings()

    private let connection: DaemonConnection
    private let failure = Mutex<ScreenTimeBusError?>(nil)

    /// Stores of the daemon `connection` reaches.
    public init(connection: DaemonConnection = .shared) { self.connection = connection }

    /// The store's settings; nil when it is clear or the daemon can't be asked (see `lastError`).
    public func settings(of store: SettingsStoreName) -> ShieldSettings? {
        do {
            let json = try connection.callForString(.settings, "Settings", [.string(store.rawValue)])
            return json.isEmpty ? nil : try BusJSON.decode(ShieldSettings.self, from: json)
        } catch {
            failure.withLock { $0 = error }
            return nil
        }
    }

    /// Replaces the store's settings; a refusal is kept in `lastError` (a property setter can't throw).
    public func setSettings(_ settings: ShieldSettings?, of store: SettingsStoreName) {
        do {
            let json = try settings.map { settings throws(ScreenTimeBusError) in try BusJSON.encode(settings) } ?? ""
            _ = try connection.call(.settings, "SetSettings", [.string(store.rawValue), .string(json)])
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// The names of this app's stores that hold settings.
    public func storeNames() throws(ScreenTimeBusError) -> [SettingsStoreName] {
        guard case .array(_, let names)? = try connection.call(.settings, "Stores").first else { return [] }
        return names.compactMap(\.stringValue).map(SettingsStoreName.init)
    }

    /// Clears every store of this app (other apps' stores keep theirs).
    public func clearAllStores() throws(ScreenTimeBusError) {
        _ = try connection.call(.settings, "ClearAllSettings")
    }

    /// Why the last call failed, if one did: the daemon's refusal, or `.unavailable`.
    public var lastError: ScreenTimeBusError? { failure.withLock { $0 } }
}
