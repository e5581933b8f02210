/// The name of a monitored activity, as an app chooses it (`"daily"`, `"bedtime"`).
///
/// The same type as Apple's `DeviceActivityName`, which the `DeviceActivity` module re-exports, so that
/// `extension DeviceActivityName { static let daily = Self("daily") }` compiles unchanged.
public struct DeviceActivityName: StringIdentifier {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The name of a usage event inside one activity (`"games.limit"`); Apple's `DeviceActivityEvent.Name`.
public struct ActivityEventName: StringIdentifier {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The name of a settings store; Apple's `ManagedSettingsStore.Name`. The unnamed store is `.default`.
public struct SettingsStoreName: StringIdentifier {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The store that `ManagedSettingsStore()` opens.
    public static let `default` = Self("default")
}
