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

    /// What this store shields. Assigning the whole replaces the store's settings; setting one of its fields
    /// (`store.shield.applications = …`) changes that setting alone, and the others stay as they are, also those
    /// another process (the app's extension) set meanwhile.
    public var shield: ShieldSettings {
        get { connection.settings(of: name) ?? ShieldSettings() }
        set { connection.setSettings(newValue.isEmpty ? nil : newValue, of: name) }
        _modify {
            let before = connection.settings(of: name) ?? ShieldSettings()
            var settings = before
            yield &settings
            connection.updateSettings(of: name, from: before, to: settings)
        }
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
            let before = connection.settings(of: name) ?? ShieldSettings()
            var settings = before
            settings.blockedApplications = newValue.blockedApplications.map { Set($0.compactMap(\.token)) }
            connection.updateSettings(of: name, from: before, to: settings)
        }
    }

    /// Clears every setting of this store (other stores keep theirs).
    public func clearAllSettings() { connection.clearSettings(of: name) }

    /// Deletes this store: its settings are cleared and it is no longer one of the app's `stores` (nor counted
    /// against the stores an app may hold). Setting it again makes it anew.
    public func deleteStore() { connection.clearSettings(of: name) }

    /// The names of this app's stores that hold settings; empty when the daemon can't be asked
    /// (`DaemonManagedSettings.shared.lastError` says why).
    public static var stores: Set<Name> { stores(in: DaemonManagedSettings.shared) }

    /// The names of the stores `connection` keeps for this app.
    public static func stores(in connection: any ManagedSettingsConnection) -> Set<Name> { connection.storeNames() }

    /// Deletes the stores of this app named in `storeNames` that exist (`deleteStore()`); other stores keep theirs.
    public static func deleteStores(_ storeNames: Set<Name>) {
        deleteStores(storeNames, in: DaemonManagedSettings.shared)
    }

    /// Deletes the stores named in `storeNames` that `connection` keeps for this app.
    public static func deleteStores(_ storeNames: Set<Name>, in connection: any ManagedSettingsConnection) {
        for name in storeNames { connection.clearSettings(of: name) }
    }
}

/// Where settings stores live: the daemon (over D-Bus) or this process.
public protocol ManagedSettingsConnection: Sendable {
    /// The settings a store holds, or `nil` when it is clear.
    func settings(of store: SettingsStoreName) -> ShieldSettings?
    /// Replaces a store's settings; `nil` clears it.
    func setSettings(_ settings: ShieldSettings?, of store: SettingsStoreName)
    /// Clears a store, whatever it holds (`clearAllSettings()`): a clear store is not kept.
    func clearSettings(of store: SettingsStoreName)
    /// The names of the stores that hold settings.
    func storeNames() -> Set<SettingsStoreName>
    /// Sets each setting that differs between `old` and `new` (what a caller read and made of it) to its value in
    /// `new`, alone: the store's other settings stay as they are, also those set since `old` was read.
    func updateSettings(of store: SettingsStoreName, from old: ShieldSettings, to new: ShieldSettings)
}

extension ManagedSettingsConnection {
    public func clearSettings(of store: SettingsStoreName) { setSettings(nil, of: store) }

    public func updateSettings(of store: SettingsStoreName, from old: ShieldSettings, to new: ShieldSettings) {
        var settings = settings(of: store) ?? ShieldSettings()
        if old.applications != new.applications { settings.applications = new.applications }
        if old.applicationCategories != new.applicationCategories {
            settings.applicationCategories = new.applicationCategories
        }
        if old.webDomains != new.webDomains { settings.webDomains = new.webDomains }
        if old.webDomainCategories != new.webDomainCategories { settings.webDomainCategories = new.webDomainCategories }
        if old.blockedApplications != new.blockedApplications { settings.blockedApplications = new.blockedApplications }
        setSettings(settings.isEmpty ? nil : settings, of: store)
    }
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
