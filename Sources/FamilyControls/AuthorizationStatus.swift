/// Whether this app may use Screen Time: Apple's `AuthorizationStatus`.
public enum AuthorizationStatus: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Nobody has been asked yet.
    case notDetermined
    /// Authorization was refused (or withdrawn).
    case denied
    /// Authorization was given.
    case approved

    public var description: String { rawValue }
}

/// Whose activity an app manages: Apple's `FamilyControlsMember`.
public enum FamilyControlsMember: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// A person limiting their own use (the daemon runs as a user service).
    case individual
    /// A child whose limits a guardian sets (the daemon runs as a system service).
    case child

    public var description: String { rawValue }
}
