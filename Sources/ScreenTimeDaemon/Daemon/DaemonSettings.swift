import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeModel

/// Where the daemon keeps things and how it samples.
public struct DaemonSettings: Sendable {
    /// Guardian mode (system service, all users) instead of individual mode (the calling user only).
    public var system: Bool
    /// The policy file: the person's own, or in guardian mode the default policy.
    public var policyPath: String
    /// Guardian mode: the folder of the users' own policies (`NAME.toml`); nil in individual mode.
    public var userPoliciesFolder: String?
    public var databasePath: String
    /// What the enforcer holds, so that a restart after a crash can release it.
    public var enforcementStatePath: String
    public var tokenKeyPath: String
    /// The users whose use counts: the daemon's own user in individual mode, everyone (nil) in guardian mode.
    public var users: Set<UserID>?
    public var tickInterval: Duration = .seconds(1)
    /// The ledger and the engine snapshot are written at least this often (and on stop).
    public var flushInterval: Duration = .seconds(1)
    public var idleTimeout: Duration = .seconds(180)
    /// Where the D-Bus service is offered: the session bus (individual mode), the system bus (guardian mode), or
    /// nowhere (nil).
    public var busEndpoint: DaemonConnection.Endpoint?
    /// The limits each D-Bus client's activities obey.
    public var clientLimits = ClientLimits.apple
    /// The limits every extension's run obeys (the policy's and the clients' declared ones).
    public var extensionLimits = ExtensionLimits.standard

    /// The defaults of individual mode for the calling user (XDG directories), or of guardian mode.
    public static func defaults(system: Bool, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> DaemonSettings
    {
        let home = environment["HOME"] ?? "/root"
        let state =
            system
            ? "/var/lib/screentime"
            : (environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? home + "/.local/state") + "/screentime"
        let policy = system ? Policy.systemPath() : Policy.defaultPath(environment: environment)
        return DaemonSettings(
            system: system, policyPath: policy, userPoliciesFolder: system ? GuardianPolicies.usersFolder : nil,
            databasePath: state + "/usage.sqlite",
            enforcementStatePath: state + "/enforcement.json",
            tokenKeyPath: Tokenizer.defaultKeyPath(system: system, environment: environment),
            users: system ? nil : [UserID(getuid())], busEndpoint: system ? .system : .session)
    }

    /// The engine's snapshot as a file beside the ledger.
    public var snapshotPath: String { (databasePath as NSString).deletingLastPathComponent + "/engine-snapshot.json" }

    /// The processes that inherited their app from a parent, beside the ledger (`InheritedAppsFile`).
    public var inheritedAppsPath: String {
        (databasePath as NSString).deletingLastPathComponent + "/inherited-apps.json"
    }

    /// Guardian mode: the requests for more time, beside the ledger.
    public var requestsPath: String { (databasePath as NSString).deletingLastPathComponent + "/requests.json" }

    /// The last good text of each policy file, beside the ledger: what a restart enforces while a file is refused.
    public var lastGoodPoliciesFolder: String {
        (databasePath as NSString).deletingLastPathComponent + "/last-good-policies"
    }

    /// The daemon's instance lock, beside the enforcement state file it guards.
    public var lockPath: String { (enforcementStatePath as NSString).deletingLastPathComponent + "/screentimed.lock" }

    /// The scope under which the engine snapshot is stored (`system`, or `user-UID`).
    public var snapshotScope: String { system ? "system" : "user-\(getuid())" }
}
