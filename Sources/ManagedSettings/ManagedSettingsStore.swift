import ScreenTimeModel

/// A named set of restrictions an app applies: Apple's `ManagedSettingsStore`.
///
/// Several stores, of this app or others, may shield at once; what is shielded is their union, so the most
/// restrictive store wins. Setting a property applies it at once:
///
/// ```swift
/// let store = ManagedSettingsStore(named: .gaming)
/// store.shield.applications = selection.applicationTokens
/// store.shield.applicationCategories = .specific(selection.categoryTokens)
/// store.clearAllSettings()
/// ```
public final class ManagedSettingsStore: Sendable {
    /// The name of a store; `ManagedSettingsStore()` opens `.default`.
    public typealias Name = SettingsStoreName

    public let name: Name
    private let connection: any ManagedSettingsConnection

    /// The default store.
    public convenience init() { self.init(named: .default) }

    /// This app's store named `name`, kept and enforced by `screentimed` (`DaemonManagedSettings.shared`).
    public convenience init(named name: Name) { self.init(named: name, connection: DaemonManagedSettings.shared) }

    /// The store named `name`, kept by `connection` (the daemon's, or an in-process one in tests).
    public init(named name: Name, connection: any ManagedSettingsConnection) {
        self.name = name
        self.connection = connection
    }

    /// What this store shields. Each assignment replaces the store's settings as a whole.
    public var shield: ShieldSettings {
        get { connection.settings(of: name) ?? ShieldSettings() }
        set { connection.setSettings(newValue.isEmpty ? nil : newValue, of: name) }
    }

    /// Which apps may not run at all. Assigning keeps the store's shields.
    public var application: ApplicationSettings {
        get {
            ApplicationSettings(
                blockedApplications: connection.settings(of: name)?.blockedApplications.map {
                    Set($0.map(Application.init(token:)))
                })
        }
        set {
            var settings = connection.settings(of: name) ?? ShieldSettings()
            settings.blockedApplications = newValue.blockedApplications.map { Set($0.compactMap(\.token)) }
            connection.setSettings(settings.isEmpty ? nil : settings, of: name)
        }
    }

    /// Clears every setting of this store (other stores keep theirs).
    public func clearAllSettings() { connection.clearSettings(of: name) }
}

/// Where settings stores live: the daemon (over D-Bus) or this process.
public protocol ManagedSettingsConnection: Sendable {
    /// The settings a store holds, or `nil` when it is clear.
    func settings(of store: SettingsStoreName) -> ShieldSettings?
    /// Replaces a store's settings; `nil` clears it.
    func setSettings(_ settings: ShieldSettings?, of store: SettingsStoreName)
    /// Clears a store, whatever it holds (`clearAllSettings()`).
    func clearSettings(of store: SettingsStoreName)
}

extension ManagedSettingsConnection {
    public func clearSettings(of store: SettingsStoreName) { setSettings(nil, of: store) }
}

/// The app settings of a store: Apple's `ApplicationSettings`.
public struct ApplicationSettings: Hashable, Sendable {
    /// Apps that may not run: a blocked app is stopped when it starts (at exec where the platform allows it,
    /// otherwise within one tick of the daemon) and never runs on while it is blocked; nil or empty blocks none.
    public var blockedApplications: Set<Application>?

    /// Settings that block `blockedApplications`.
    public init(blockedApplications: Set<Application>? = nil) {
        self.blockedApplications = blockedApplications
    }
}
