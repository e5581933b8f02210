import Foundation

/// A limited user's request for more time (`screentime ask`), as the guardian daemon keeps it and `Daemon1.Requests`
/// lists it (JSON, `docs/DBUS.md`).
public struct TimeRequest: Codable, Hashable, Sendable {
    public enum State: String, Codable, Sendable { case pending, approved, denied }
    /// Unique on this daemon; the guardian answers by it.
    public var id: UInt32
    /// Who asked: uid and name.
    public var user: UInt32
    public var userName: String
    /// How much they asked for.
    public var seconds: UInt32
    /// Why, in their words (may be empty).
    public var reason: String
    public var filedAt: Date
    public var state: State
    /// What the guardian gave, when approved.
    public var grantedSeconds: UInt32?

    public init(
        id: UInt32, user: UInt32, userName: String, seconds: UInt32, reason: String, filedAt: Date, state: State
    ) {
        self.id = id
        self.user = user
        self.userName = userName
        self.seconds = seconds
        self.reason = reason
        self.filedAt = filedAt
        self.state = state
    }
}
