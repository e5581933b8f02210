import Enforcement
import ScreenTimeEngine
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

@Suite struct PolicyPlanning {
    static let policy = try! Policy.parse(
        """
        always_allowed = ["org.gnome.Calculator"]
        [[limit]]
        name = "games"
        apps = ["org.example.Game", "supertuxkart"]
        categories = ["games"]
        daily = "1h30m"
        warning = "5m"
        [[limit]]
        name = "video"
        apps = ["vlc"]
        daily = "2h"
        shield = "terminate"
        grace = "30s"
        start = "08:00"
        end = "15:00:30"
        [[downtime]]
        name = "bedtime"
        start = "21:30"
        end = "07:00"
        allow = ["org.gnome.Clocks"]
        """, file: "plan.toml")

    static func app(_ id: AppID) -> ApplicationToken { ApplicationToken(rawValue: "app:" + id.rawValue) }
    static func category(_ category: ActivityCategory) -> ActivityCategoryToken {
        ActivityCategoryToken(rawValue: "cat:" + category.rawValue)
    }
    let plan = PolicyPlan(policy: policy, appToken: app, categoryToken: category)

    @Test func aDailyLimitIsAMidnightToMidnightActivityWithOneEventCountingTheDaysUse() throws {
        let registration = try #require(plan.registrations.first { $0.name == DeviceActivityName("limit.games") })
        #expect(registration.schedule.intervalStart == CalendarPattern(hour: 0, minute: 0, second: 0))
        #expect(registration.schedule.intervalEnd == CalendarPattern(hour: 0, minute: 0, second: 0))
        #expect(registration.schedule.repeats)
        #expect(plan.limits.map(\.weekday) == [nil, nil])
        #expect(registration.schedule.warningTime == .seconds(300))
        let event = try #require(registration.events[PolicyPlan.limitEvent])
        #expect(event.threshold == .seconds(5400))
        #expect(event.includesPastActivity)
        #expect(event.applications == [Self.app(AppID("org.example.Game")), Self.app(AppID("supertuxkart"))])
        #expect(event.categories == [Self.category(.games)])
    }

    @Test func aLimitsShieldSparesAlwaysAllowedApps() throws {
        let games = try #require(plan.limits.first { $0.name == "games" })
        #expect(games.shield.applications == [Self.app(AppID("org.example.Game")), Self.app(AppID("supertuxkart"))])
        #expect(
            games.shield.applicationCategories
                == .specific([Self.category(.games)], except: [Self.app(AppID("org.gnome.Calculator"))]))
        #expect(games.mode == .freeze)
    }

    @Test func aWindowedLimitRunsInItsWindowAndTerminates() throws {
        let registration = try #require(plan.registrations.first { $0.name == DeviceActivityName("limit.video") })
        #expect(registration.schedule.intervalStart == CalendarPattern(hour: 8, minute: 0, second: 0))
        #expect(registration.schedule.intervalEnd == CalendarPattern(hour: 15, minute: 0, second: 30))
        #expect(plan.limits.first { $0.name == "video" }?.mode == .terminate(grace: .seconds(30)))
        #expect(plan.limits.first { $0.name == "games" }?.mode == .freeze)
    }

    @Test func downtimeShieldsEverythingButItsAllowListAndTheAlwaysAllowedApps() throws {
        let activity = DeviceActivityName("downtime.bedtime")
        let downtime = try #require(plan.downtimeShields[activity])
        #expect(downtime.store == SettingsStoreName("downtime.bedtime"))
        #expect(
            downtime.shield.applicationCategories
                == .all(except: [Self.app(AppID("org.gnome.Calculator")), Self.app(AppID("org.gnome.Clocks"))]))
        let registration = try #require(plan.registrations.first { $0.name == activity })
        #expect(registration.schedule.intervalStart == CalendarPattern(hour: 21, minute: 30, second: 0))
        #expect(registration.events.isEmpty)
    }

    @Test func extraTimeIsAOneUserActivityToTheEndOfTheLimitsInterval() throws {
        let video = try #require(plan.limits.first { $0.name == "video" })
        let extra = PolicyPlan.extraTime(
            .seconds(900), after: video, for: UserID(1000), number: 2, fromShield: false, startingAt: (10, 15, 0))
        #expect(extra.name == DeviceActivityName("extra.video.1000.2"))
        let fromShield = PolicyPlan.extraTime(
            .seconds(900), after: video, for: UserID(1000), number: 3, fromShield: true, startingAt: (10, 15, 0))
        #expect(fromShield.name == DeviceActivityName("extra.video.1000.shield.3"))
        #expect(plan.limit(for: fromShield.name)?.name == "video")
        #expect(extra.users == [UserID(1000)])
        #expect(extra.schedule.intervalEnd == CalendarPattern(hour: 15, minute: 0, second: 30))
        #expect(!extra.schedule.repeats)
        #expect(extra.events[PolicyPlan.extraEvent]?.threshold == .seconds(900))
        #expect(plan.limit(for: extra.name)?.name == "video")
        #expect(plan.limit(for: DeviceActivityName("downtime.bedtime")) == nil)
    }
}
