/// The daemon's state as the properties of `org.screentime.Daemon1` show it; the engine loop publishes it and the
/// bus thread reads it, without waiting for the loop.
public struct DaemonBusState: Hashable, Sendable {
    /// The daemon's version.
    public var version = DaemonBusState.currentVersion
    /// `individual` (a user service limiting its user) or `guardian` (the system service, every user).
    public var mode = "individual"
    /// The policy file read.
    public var policyPath = ""
    /// Why the policy file was refused at the last (re)load; empty when it was accepted.
    public var policyError = ""
    /// How many users have a shield in force.
    public var shieldedUsers: UInt32 = 0
    /// Where an unreadable usage store was moved aside at start-up; empty when none was.
    public var storeMovedAside = ""

    /// A state with the defaults above.
    public init() {}

    /// The version this build of the daemon reports.
    public static let currentVersion = "0.1.0"
}
