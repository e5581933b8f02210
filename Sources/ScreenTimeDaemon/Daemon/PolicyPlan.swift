import Enforcement
import ScreenTimeEngine
import ScreenTimeModel

/// What a policy file means to the engine: one activity per limit and per downtime, and the shields their callbacks
/// put in place. Pure: the same policy and tokens give the same plan.
///
/// - A limit `games` is the activity `limit.games`: a daily interval (local midnight to midnight, or the limit's
///   `start`–`end` window) with one event
///   `limit` (its apps and categories, threshold `daily`, counting use earlier that day so a reload loses nothing)
///   and the limit's warning as the schedule's warning time. Reaching the threshold applies the settings store
///   `limit.games` (its apps and categories, minus always-allowed apps) to that user; a new day clears it.
///   A limit by weekday is one such activity per day it limits, from that day's midnight (or `start`) with that
///   day's threshold: the first day, Monday first, is `limit.games`, the others `limit.games.tue` and so on. They
///   share the store `limit.games`, so extra time and reloads treat them as one limit.
/// - A downtime `bedtime` is the activity `downtime.bedtime` from `start` to `end` every day. While its interval runs
///   the store `downtime.bedtime` shields every app except its allow list and the always-allowed apps. A downtime by
///   weekday is one activity and store per day, `downtime.bedtime.mon` … `downtime.bedtime.sun`, from that day's
///   `start`.
/// - Extra time granted (from a shield, or `screentime extra`) is the activity `extra.<limit>.<uid>.<ms>` (`ms`: the
///   grant's time): from the grant to the end of the day,
///   for that user only, with one event whose threshold is the extra time; reaching it applies the limit's store
///   again.
/// - In guardian mode several policies share one plan, each for its users (`Scope`): the default policy's names are
///   as above; a user's own policy qualifies them with the user's name (`limit.games@alice`, its store
///   `limit.games@alice`, `downtime.bedtime@alice.mon`), and each registration counts only the users its policy
///   covers.
public struct PolicyPlan: Sendable {
    /// One policy and whom it covers.
    public struct Scope: Sendable {
        public var policy: Policy
        /// The users it limits; nil for every user the engine sees (individual mode).
        public var users: Set<UserID>?
        /// Appended to its activities' and stores' names (`@alice`), so that policies of different users never
        /// share one; nil for the default policy.
        public var qualifier: String?

        public init(policy: Policy, users: Set<UserID>? = nil, qualifier: String? = nil) {
            self.policy = policy
            self.users = users
            self.qualifier = qualifier
        }
    }

    /// A limit as the daemon needs it at run time.
    public struct Limit: Sendable {
        /// The limit's name, as its policy writes it.
        public var name: String
        /// The name unique in the plan: `name`, or `name@user` for a user's own policy.
        public var key: String
        /// The users it limits; nil for every user.
        public var users: Set<UserID>?
        /// The apps it names (a close asked from its shield ends them).
        public var applications: [AppID]
        /// Its policy's shield text and extra time.
        public var shieldText: Policy.ShieldSettings
        public var activity: DeviceActivityName
        public var store: SettingsStoreName
        public var event: ActivityEvent
        public var shield: ShieldSettings
        public var mode: ShieldMode
        public var daily: Duration
        public var warning: Duration?
        /// When the limit's interval ends (midnight for a daily limit): extra time lasts until then.
        public var intervalEnd: CalendarPattern
        /// The day this activity limits, for a limit by weekday; nil when it runs every day.
        public var weekday: Policy.Weekday?

        /// Whether `user` lives under this limit.
        public func applies(to user: UserID) -> Bool { users.includes(user) }
    }

    /// A downtime as status shows it.
    public struct Downtime: Sendable {
        public var name: String
        /// Its activities: one (`downtime.bedtime`, `downtime.bedtime@alice`), or one a day for a downtime by weekday
        /// (`downtime.bedtime.mon` …).
        public var activities: [DeviceActivityName]
        public var users: Set<UserID>?

        /// Whether `user` lives under this downtime.
        public func applies(to user: UserID) -> Bool { users.includes(user) }
    }

    public static let limitEvent = ActivityEventName("limit")
    public static let extraEvent = ActivityEventName("extra")

    public var limits: [Limit] = []
    /// How many limits the policies hold (a limit by weekday is one): counted once here, shown at every tick.
    public private(set) var limitCount = 0
    public var registrations: [ActivityRegistration] = []
    public var downtimes: [Downtime] = []
    /// Settings applied while each downtime's interval runs, and the users they apply to (nil: everyone).
    public var downtimeShields:
        [DeviceActivityName: (store: SettingsStoreName, shield: ShieldSettings, users: Set<UserID>?)] = [:]
    /// The monitor extension each activity names, run for each of its callbacks.
    public var extensions: [DeviceActivityName: PolicyExtension] = [:]

    /// A policy's `extension =`: the executable, and the activity name it is told, the limit's or downtime's
    /// (`limit.games`, `downtime.bedtime`) whichever day's activity calls it, so a limit by weekday is one activity
    /// to its extension as it is one limit to its author.
    public struct PolicyExtension: Sendable, Equatable {
        public var executable: String
        public var activity: String
        /// The users of its policy (nil: every user).
        public var users: Set<UserID>?
    }

    /// The plan of one policy for every user (individual mode).
    public init(
        policy: Policy, appToken: (AppID) -> ApplicationToken,
        categoryToken: (ActivityCategory) -> ActivityCategoryToken
    ) {
        self.init(scopes: [Scope(policy: policy)], appToken: appToken, categoryToken: categoryToken)
    }

    /// The plan of several policies, each for its users (guardian mode).
    public init(
        scopes: [Scope], appToken: (AppID) -> ApplicationToken,
        categoryToken: (ActivityCategory) -> ActivityCategoryToken
    ) {
        for scope in scopes { add(scope, appToken: appToken, categoryToken: categoryToken) }
    }

    private mutating func add(
        _ scope: Scope, appToken: (AppID) -> ApplicationToken,
        categoryToken: (ActivityCategory) -> ActivityCategoryToken
    ) {
        let policy = scope.policy
        let qualifier = scope.qualifier.map { "@" + $0 } ?? ""
        let allowed = Set(policy.alwaysAllowed.map(appToken))
        let midnight = CalendarPattern(hour: 0, minute: 0, second: 0)
        limitCount += policy.limits.count
        for limit in policy.limits {
            let applications = Set(limit.applications.map(appToken))
            let categories = Set(limit.categories.map(categoryToken))
            let mode: ShieldMode
            switch limit.shield {
            case .freeze: mode = .freeze
            case .terminate(let grace): mode = .terminate(grace: grace)
            }
            // An empty limit (no apps, no categories) counts all use and shields everything but the allowed apps.
            let shield =
                applications.isEmpty && categories.isEmpty
                ? ShieldSettings(applicationCategories: .all(except: allowed))
                : ShieldSettings(
                    applications: applications.subtracting(allowed),
                    applicationCategories: categories.isEmpty ? nil : .specific(categories, except: allowed))
            let intervalEnd = limit.window.map { Self.pattern($0.end) } ?? midnight
            // One activity for every day, or one per day the limit names, each with that day's threshold.
            let days: [(weekday: Policy.Weekday?, daily: Duration)] =
                limit.dailyByWeekday.map { byDay in
                    Policy.Weekday.mondayFirst.compactMap { day in byDay[day].map { (day, $0) } }
                } ?? [(nil, limit.daily)]
            for (index, day) in days.enumerated() {
                let event = ActivityEvent(
                    applications: applications, categories: categories, threshold: day.daily,
                    includesPastActivity: true)
                let activity = DeviceActivityName(
                    "limit.\(limit.name)\(qualifier)" + (index == 0 ? "" : ".\(day.weekday?.abbreviation ?? "")"))
                var intervalStart = limit.window.map { Self.pattern($0.start) } ?? midnight
                intervalStart.weekday = day.weekday?.rawValue
                limits.append(
                    Limit(
                        name: limit.name, key: limit.name + qualifier, users: scope.users,
                        applications: limit.applications,
                        shieldText: policy.shield, activity: activity,
                        store: SettingsStoreName("limit.\(limit.name)\(qualifier)"),
                        event: event, shield: shield, mode: mode, daily: day.daily, warning: limit.warning,
                        intervalEnd: intervalEnd, weekday: day.weekday))
                registrations.append(
                    ActivityRegistration(
                        name: activity,
                        schedule: ActivitySchedule(
                            intervalStart: intervalStart, intervalEnd: intervalEnd, repeats: true,
                            warningTime: limit.warning),
                        events: [Self.limitEvent: event], users: scope.users))
                extensions[activity] = limit.extensionPath.map {
                    PolicyExtension(executable: $0, activity: "limit.\(limit.name)", users: scope.users)
                }
            }
        }
        for downtime in policy.downtimes {
            let exceptions = allowed.union(downtime.allowed.map(appToken))
            let days: [(weekday: Policy.Weekday?, span: Policy.Span)] =
                downtime.spansByWeekday.map { byDay in
                    Policy.Weekday.mondayFirst.compactMap { day in byDay[day].map { (day, $0) } }
                } ?? [(nil, Policy.Span(start: downtime.start, end: downtime.end))]
            for day in days {
                // Each day its own store, named as its activity, so overlapping days never clear each other.
                let name = "downtime.\(downtime.name)\(qualifier)" + (day.weekday.map { ".\($0.abbreviation)" } ?? "")
                let activity = DeviceActivityName(name)
                if day.weekday == days.first?.weekday {
                    downtimes.append(Downtime(name: downtime.name, activities: [activity], users: scope.users))
                } else {
                    downtimes[downtimes.count - 1].activities.append(activity)
                }
                extensions[activity] = downtime.extensionPath.map {
                    PolicyExtension(executable: $0, activity: "downtime.\(downtime.name)", users: scope.users)
                }
                downtimeShields[activity] = (
                    SettingsStoreName(name), ShieldSettings(applicationCategories: .all(except: exceptions)),
                    scope.users
                )
                var intervalStart = Self.pattern(day.span.start)
                intervalStart.weekday = day.weekday?.rawValue
                registrations.append(
                    ActivityRegistration(
                        name: activity,
                        schedule: ActivitySchedule(
                            intervalStart: intervalStart, intervalEnd: Self.pattern(day.span.end), repeats: true),
                        events: [:], users: scope.users))
            }
        }
    }

    static func pattern(_ time: Policy.TimeOfDay) -> CalendarPattern {
        CalendarPattern(hour: time.hour, minute: time.minute, second: time.second)
    }

    /// The limit an activity belongs to (`limit.KEY` or `extra.KEY.UID.N`).
    public func limit(for activity: DeviceActivityName) -> Limit? {
        let parts = activity.rawValue.split(separator: ".", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        if parts[0] == "limit" { return limits.first { $0.activity == activity } }
        if parts[0] == "extra" {
            // extra.KEY.UID[.shield].NUMBER; a key names a user (`games@ana.zed`), who may have dots in their name.
            var rest = parts[1].split(separator: ".", omittingEmptySubsequences: false)
            guard rest.count >= 3 else { return nil }
            rest.removeLast()
            if rest.last == "shield" { rest.removeLast() }
            rest.removeLast()
            let key = rest.joined(separator: ".")
            return limits.first { $0.key == key }
        }
        return nil
    }

    /// Whether a guardian's policy names `user` among those it limits.
    public func covers(_ user: UserID) -> Bool { registrations.contains { $0.users?.contains(user) ?? false } }

    /// Whether a limit or downtime of this plan holds `store` for `user`.
    func holds(_ store: SettingsStoreName, for user: UserID) -> Bool {
        limits.contains { $0.store == store && $0.applies(to: user) }
            || downtimeShields.values.contains { $0.store == store && $0.users.includes(user) }
    }

    /// The limits `user` lives under, one per limit (a limit by weekday is one limit).
    public func limits(of user: UserID) -> [Limit] {
        var seen: Set<String> = []
        return limits.filter { $0.applies(to: user) && seen.insert($0.key).inserted }
    }

    /// The registration of extra time for a user after a limit: from now to the end of the limit's interval. The
    /// engine keeps it, in its snapshot too, until that interval ends: the grants of the interval are its live
    /// `extra.` activities, and those taken from the shield are named with `fromShieldPrefix`.
    public static func extraTime(
        _ extra: Duration, after limit: Limit, for user: UserID, number: Int, fromShield: Bool,
        startingAt local: (hour: Int, minute: Int, second: Int)
    ) -> ActivityRegistration {
        var event = limit.event
        event.threshold = extra
        event.includesPastActivity = false
        let prefix = fromShield ? fromShieldPrefix(of: limit, for: user) : extraPrefix(of: limit, for: user)
        return ActivityRegistration(
            name: DeviceActivityName("\(prefix)\(number)"),
            schedule: ActivitySchedule(
                intervalStart: CalendarPattern(hour: local.hour, minute: local.minute, second: local.second),
                intervalEnd: limit.intervalEnd, repeats: false),
            events: [extraEvent: event], users: [user])
    }

    /// What the names of the extra time `user` took from `limit`'s shield begin with: those the shield's
    /// `extra_times_per_day` counts.
    public static func fromShieldPrefix(of limit: Limit, for user: UserID) -> String {
        extraPrefix(of: limit, for: user) + "shield."
    }

    /// What the names of all the extra time `user` has after `limit` begin with (`limit(for:)` reads them back).
    static func extraPrefix(of limit: Limit, for user: UserID) -> String {
        "extra.\(limit.key).\(user.rawValue)."
    }
}
