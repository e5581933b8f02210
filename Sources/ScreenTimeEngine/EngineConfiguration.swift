/// The limits and tolerances of an engine. The defaults are Apple's limits; a guardian or a test may change them.
public struct EngineConfiguration: Hashable, Sendable, Codable {
    /// The most activities monitored at once, or `nil` for no limit. Apple's limit is 20 per app.
    public var maximumActivities: Int?
    /// The shortest interval a schedule may have, or `nil` for no limit. Apple's limit is 15 minutes.
    public var minimumIntervalLength: Duration?
    /// The longest interval a schedule may have, or `nil` for no limit. Apple's limit is one week.
    public var maximumIntervalLength: Duration?
    /// How long a session's sample stays true when no newer one arrives. Past it the session counts as unknown
    /// and no use accrues, so a stalled collector or a restart cannot make up usage. The default, 2 s, is twice
    /// the collector's 1-second tick: a late tick still counts in full, a stall adds at most two seconds.
    public var sampleHoldLimit: Duration
    /// How long the per-user usage record behind `includesPastActivity` is kept. At least the longest interval.
    public var pastActivityRetention: Duration

    public init(
        maximumActivities: Int? = 20, minimumIntervalLength: Duration? = .seconds(15 * 60),
        maximumIntervalLength: Duration? = .seconds(7 * 86_400), sampleHoldLimit: Duration = .seconds(2),
        pastActivityRetention: Duration = .seconds(8 * 86_400)
    ) {
        self.maximumActivities = maximumActivities
        self.minimumIntervalLength = minimumIntervalLength
        self.maximumIntervalLength = maximumIntervalLength
        self.sampleHoldLimit = sampleHoldLimit
        self.pastActivityRetention = pastActivityRetention
    }

    /// Apple's limits: 20 activities, intervals from 15 minutes to one week.
    public static let appleDefaults = Self()

    /// No limit on activities or interval lengths.
    public static let unlimited = Self(maximumActivities: nil, minimumIntervalLength: nil, maximumIntervalLength: nil)
}
