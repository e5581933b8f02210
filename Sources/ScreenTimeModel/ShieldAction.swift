/// A button pressed on a shield: Apple's `ShieldAction`, named as the `--action` argument of a shield-action
/// extension (the daemon that runs it and `ShieldActionExtensionMain` that parses it share this one list).
public enum ShieldAction: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    case primaryButtonPressed
    case secondaryButtonPressed

    public var description: String { rawValue }
}

/// What a shield does after its button was handled: Apple's `ShieldActionResponse`, printed by a shield-action
/// extension as one line (`close`, `defer`, `none`).
public enum ShieldActionResponse: String, CaseIterable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Close the shielded app.
    case close
    /// Keep the shield up and let the app's settings be looked at again (ask again later).
    case `defer`
    /// Do nothing: the shield stays.
    case none

    public var description: String { rawValue }
}
