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
    /// The stores whose last reading failed: what a caller made of it next (`store.shield.applications = …` reads the
    /// store, changes one field and writes it back) is not written, or it would clear the settings it couldn't read.
    private let unread = Mutex<Set<SettingsStoreName>>([])

    /// Stores of the daemon `connection` reaches.
    public init(connection: DaemonConnection = .shared) { self.connection = connection }

    /// The store's settings; nil when it is clear or the daemon can't be asked (see `lastError`).
    public func settings(of store: SettingsStoreName) -> ShieldSettings? {
        do {
            let json = try connection.callForString(.settings, "Settings", [.string(store.rawValue)])
            let settings = json.isEmpty ? nil : try BusJSON.decode(ShieldSettings.self, from: json)
            _ = unread.withLock { $0.remove(store) }
            return settings
        } catch {
            failure.withLock { $0 = error }
            _ = unread.withLock { $0.insert(store) }
            return nil
        }
    }

    /// Replaces the store's settings; a refusal is kept in `lastError` (a property setter can't throw). The first
    /// write after a failed reading of the store is refused: it may have been made from the empty settings the
    /// reading gave (`clearSettings(of:)` still clears). Read the store again, or set it again, to write.
    public func setSettings(_ settings: ShieldSettings?, of store: SettingsStoreName) {
        if unread.withLock({ $0.remove(store) != nil }) {
            failure.withLock {
                $0 = ScreenTimeBusError(
                    .failed,
                    "the settings of store \(store.rawValue) could not be read, so they are not replaced by settings "
                        + "that may have been made from nothing; read the store again, then set them")
            }
            return
        }
        do {
            let json = try settings.map { settings throws(ScreenTimeBusError) in try BusJSON.encode(settings) } ?? ""
            _ = try connection.call(.settings, "SetSettings", [.string(store.rawValue), .string(json)])
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// Sets each setting that differs between `old` and `new` on its own (`Settings1.SetSetting`): the daemon changes
    /// that one and keeps the store's others, whoever set them since `old` was read.
    public func updateSettings(of store: SettingsStoreName, from old: ShieldSettings, to new: ShieldSettings) {
        do {
            for change in try ShieldSettings.changedSettings(from: old, to: new) {
                _ = try connection.call(
                    .settings, "SetSetting", [.string(store.rawValue), .string(change.key), .string(change.json)])
            }
            _ = unread.withLock { $0.remove(store) }
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// Clears the store, also while it can't be read.
    public func clearSettings(of store: SettingsStoreName) {
        _ = unread.withLock { $0.remove(store) }
        setSettings(nil, of: store)
    }

    /// The names of this app's stores that hold settings; empty when the daemon can't be asked (see `lastError`).
    public func storeNames() -> Set<SettingsStoreName> {
        do {
            guard case .array(_, let names)? = try connection.call(.settings, "Stores").first else { return [] }
            return Set(names.compactMap(\.stringValue).map(SettingsStoreName.init))
        } catch {
            failure.withLock { $0 = error }
            return []
        }
    }

    /// Clears every store of this app (other apps' stores keep theirs).
    public func clearAllStores() throws(ScreenTimeBusError) {
        _ = try connection.call(.settings, "ClearAllSettings")
    }

    /// Why the last call failed, if one did: the daemon's refusal, or `.unavailable`.
    public var lastError: ScreenTimeBusError? { failure.withLock { $0 } }
}
