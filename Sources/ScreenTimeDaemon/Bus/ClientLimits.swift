/// The limits each D-Bus client's activities obey: Apple's, unless the daemon is set otherwise (tests shorten the
/// interval; the check is the same).
public struct ClientLimits: Hashable, Sendable {
    /// The most activities one client may monitor at once.
    public var maximumActivities: Int
    /// The shortest schedule interval a client may ask for.
    public var minimumIntervalLength: Duration

    /// Limits of `maximumActivities` activities and intervals of at least `minimumIntervalLength`.
    public init(maximumActivities: Int = 20, minimumIntervalLength: Duration = .seconds(15 * 60)) {
        self.maximumActivities = maximumActivities
        self.minimumIntervalLength = minimumIntervalLength
    }

    /// Apple's limits: 20 activities per app, intervals of 15 minutes or more.
    public static let apple = ClientLimits()
}
