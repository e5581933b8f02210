import Foundation
import ScreenTimeModel

/// One stretch of one app in front in one session, as the daemon reports it each tick.
///
/// The daemon reports the same stretch again with a later `end` and a larger `duration` while the app stays in
/// front; `(session, application, start)` identifies the stretch, so the recorder updates one row rather than
/// adding one per tick.
public struct UsageInterval: Hashable, Sendable {
    /// The user whose use it is.
    public var user: UserID
    /// The logind session it happened in.
    public var session: SessionID
    /// The app and its category.
    public var use: AppUse
    /// Wall time the stretch began.
    public var start: Date
    /// Wall time of its latest tick.
    public var end: Date
    /// Use counted on the monotonic clock from `start` to `end` (suspend and clock changes excluded).
    public var duration: Duration

    /// Creates an interval.
    public init(user: UserID, session: SessionID, use: AppUse, start: Date, end: Date, duration: Duration) {
        self.user = user
        self.session = session
        self.use = use
        self.start = start
        self.end = end
        self.duration = duration
    }
}
