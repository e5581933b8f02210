import Foundation
import ScreenTimeModel

/// A pickup: the first app a user turned to after coming back to a session.
public struct Pickup: Hashable, Sendable {
    /// The user.
    public var user: UserID
    /// The session.
    public var session: SessionID
    /// The app picked up.
    public var application: ApplicationToken
    /// Wall time of the pickup.
    public var time: Date

    /// Creates a pickup.
    public init(user: UserID, session: SessionID, application: ApplicationToken, time: Date) {
        self.user = user
        self.session = session
        self.application = application
        self.time = time
    }
}
