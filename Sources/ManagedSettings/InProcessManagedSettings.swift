import ScreenTimeModel
import Synchronization

/// Settings stores kept in this process's memory, for programs that run the engine themselves and for tests.
public final class InProcessManagedSettings: ManagedSettingsConnection {
    /// One set of stores for a whole test process.
    public static let shared = InProcessManagedSettings()

    private let stores = Mutex<[SettingsStoreName: ShieldSettings]>([:])

    public init() {}

    public func settings(of store: SettingsStoreName) -> ShieldSettings? {
        stores.withLock { $0[store] }
    }

    public func setSettings(_ settings: ShieldSettings?, of store: SettingsStoreName) {
        stores.withLock { $0[store] = settings.flatMap { $0.isEmpty ? nil : $0 } }
    }

    public func storeNames() -> Set<SettingsStoreName> { stores.withLock { Set($0.keys) } }

    /// Every store's settings, by name.
    public var allSettings: [SettingsStoreName: ShieldSettings] { stores.withLock { $0 } }
}
