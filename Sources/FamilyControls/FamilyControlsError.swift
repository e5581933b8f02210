/// Why authorization failed: Apple's `FamilyControlsError`, every case of it, so that a `switch` written for Apple's
/// compiles; `networkError`, `authenticationMethodUnavailable` and `unauthorized` are never thrown here (no account
/// service is asked, no passcode is used, and an app not authorized is told so by `MonitoringError.unauthorized`).
public enum FamilyControlsError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The person asked (or the guardian) declined.
    case authorizationCanceled
    /// Another app already holds authorization for this member in a way that excludes this one.
    case authorizationConflict
    /// The account cannot be managed this way: `.child` asked from an account that is not a managed child.
    case invalidAccountType
    /// An argument was not valid.
    case invalidArgument
    /// Authorization is not possible here: no guardian can be asked, or the daemon refuses this caller.
    case restricted
    /// The service that decides is not running (`screentimed` is not reachable).
    case unavailable
    /// Apple's: the account service could not be reached. Never thrown here.
    case networkError
    /// Apple's: the device has no passcode or authentication method to approve with. Never thrown here.
    case authenticationMethodUnavailable
    /// Apple's: the calling app must be authorized to provide parental controls and access data. Never thrown here.
    case unauthorized

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .authorizationCanceled: "authorization was declined"
        case .authorizationConflict: "another app holds a conflicting authorization"
        case .invalidAccountType: "this account cannot be managed as requested"
        case .invalidArgument: "an argument was not valid"
        case .restricted: "authorization is restricted: no guardian can approve it here"
        case .unavailable: "the Screen Time service is not available"
        case .networkError: "the account service could not be reached"
        case .authenticationMethodUnavailable: "no authentication method is available to approve with"
        case .unauthorized: "the app is not authorized to provide parental controls"
        }
    }
}
