/// The limits each D-Bus client's activities obey: Apple's, unless the daemon is set otherwise (tests shorten the
/// interval; the check is the same).
public struct ClientLimits: Hashable, Sendable {
    /// The most activities one client may monitor at once.
    public var maximumActivities: Int
    /// The shortest schedule interval a client may ask for.
    public var minimumIntervalLength: Duration
    /// The most settings stores one client may hold (each kept in the ledger, also a guardian's).
    public var maximumStores: Int
    /// The largest settings a store, or activity, may hold, as JSON.
    public var maximumJSONBytes: Int
    /// The most activities, and stores, all the apps of one user may hold together: each program a user copies
    /// under a new name is a client of its own, and a guardian's daemon counts and keeps them all.
    public var maximumActivitiesPerUser: Int
    public var maximumStoresPerUser: Int
    /// The most apps of one user whose authorization the daemon keeps.
    public var maximumAppsPerUser: Int

    /// Limits of `maximumActivities` activities, intervals of at least `minimumIntervalLength`, `maximumStores`
    /// stores, each store and activity of at most `maximumJSONBytes`; per user, `maximumActivitiesPerUser`
    /// activities and `maximumStoresPerUser` stores, and the authorizations of `maximumAppsPerUser` apps.
    public init(
        maximumActivities: Int = 20, minimumIntervalLength: Duration = .seconds(15 * 60), maximumStores: Int = 50,
        maximumJSONBytes: Int = 64 * 1024, maximumActivitiesPerUser: Int = 200, maximumStoresPerUser: Int = 200,
        maximumAppsPerUser: Int = 200
    ) {
        self.maximumActivities = maximumActivities
        self.minimumIntervalLength = minimumIntervalLength
        self.maximumStores = maximumStores
        self.maximumJSONBytes = maximumJSONBytes
        self.maximumActivitiesPerUser = maximumActivitiesPerUser
        self.maximumStoresPerUser = maximumStoresPerUser
        self.maximumAppsPerUser = maximumAppsPerUser
    }

    /// Apple's limits: 20 activities per app, intervals of 15 minutes or more, 50 stores per app (and ours: 200
    /// activities, 200 stores and 200 apps' authorizations per user).
    public static let apple = ClientLimits()
}
