/// Why authorization failed: Apple's `FamilyControlsError`, with the cases that can happen on Linux.
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

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .authorizationCanceled: "authorization was declined"
        case .authorizationConflict: "another app holds a conflicting authorization"
        case .invalidAccountType: "this account cannot be managed as requested"
        case .invalidArgument: "an argument was not valid"
        case .restricted: "authorization is restricted: no guardian can approve it here"
        case .unavailable: "the Screen Time service is not available"
        }
    }
}
