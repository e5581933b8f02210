import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

@Suite struct PolicyTests {
    static let example = """
        [[limit]]
        name = "games"
        apps = ["org.example.Game", "supertuxkart"]
        categories = ["games"]
        daily = "1h30m"        # also "45s", "20m", "2h"
        warning = "5m"
        shield = "freeze"      # or "terminate"

        [[downtime]]
        name = "bedtime"
        start = "21:30"
        end = "07:00"
        allow = ["org.gnome.Calculator"]
        """

    @Test func parsesTheDocumentedExample() throws {
        let policy = try Policy.parse(Self.example)
        #expect(
            policy.limits == [
                Policy.Limit(
                    name: "games", applications: [AppID("org.example.Game"), AppID("supertuxkart")],
                    categories: [.games], daily: .seconds(5400), warning: .seconds(300), shield: .freeze)
            ])
        #expect(
            policy.downtimes == [
                Policy.Downtime(
                    name: "bedtime", start: Policy.TimeOfDay(hour: 21, minute: 30),
                    end: Policy.TimeOfDay(hour: 7, minute: 0), allowed: [AppID("org.gnome.Calculator")])
            ])
        #expect(policy.downtimes[0].crossesMidnight)
        #expect(policy.alwaysAllowed.isEmpty)
        #expect(policy.shield == Policy.ShieldSettings())
    }

    @Test func parsesTopLevelAllowListAndShieldTable() throws {
        let policy = try Policy.parse(
            """
            always_allowed = ["org.gnome.Calculator", "org.gnome.Settings"]  # never limited
            [shield]
            message = "Time's up.\\nAsk for more: \\"please\\" \\u00E9"
            extra = "15m"
            extra_times = 2
            """)
        #expect(policy.alwaysAllowed == [AppID("org.gnome.Calculator"), AppID("org.gnome.Settings")])
        #expect(policy.shield.message == "Time's up.\nAsk for more: \"please\" é")
        #expect(policy.shield.extraTime == .seconds(900))
        #expect(policy.shield.extraTimesPerDay == 2)
    }

    @Test func theCommentedExampleParses() throws {
        let policy = try Policy.parse(Policy.commentedExample, file: "example")
        #expect(policy.limits.map(\.name) == ["games", "video", "school-social"])
        #expect(policy.limits[1].shield == .terminate(grace: .seconds(30)))
        #expect(policy.limits[0].window == nil)
        #expect(policy.limits[2].window?.start == Policy.TimeOfDay(hour: 8, minute: 0))
        #expect(policy.limits[2].window?.end == Policy.TimeOfDay(hour: 15, minute: 0))
        #expect(policy.downtimes.map(\.name) == ["bedtime"])
        #expect(policy.shield.extraTimesPerDay == 2)
    }

    @Test func limitWindowsTakeSecondsAndRefuseEmptySpans() throws {
        let policy = try Policy.parse("[[limit]]\nname = \"x\"\ndaily = \"1m\"\nstart = \"10:00:30\"\nend = \"10:05\"\n")
        #expect(policy.limits[0].window?.start == Policy.TimeOfDay(hour: 10, minute: 0, second: 30))
        #expect(throws: PolicyError.self) {
            try Policy.parse("[[limit]]\nname = \"x\"\ndaily = \"1m\"\nstart = \"10:00\"\nend = \"10:00\"\n")
        }
        #expect(throws: PolicyError.self) {
            try Policy.parse("[[limit]]\nname = \"x\"\ndaily = \"1m\"\nstart = \"10:00\"\n")
        }
    }

    @Test func limitsAndDowntimesMayNameAMonitorExtension() throws {
        let policy = try Policy.parse(
            "[[limit]]\nname = \"x\"\ndaily = \"1m\"\nextension = \"/usr/local/bin/mon\"\n"
                + "[[downtime]]\nname = \"d\"\nstart = \"21:00\"\nend = \"07:00\"\nextension = \"/opt/m\"\n")
        #expect(policy.limits[0].extensionPath == "/usr/local/bin/mon")
        #expect(policy.downtimes[0].extensionPath == "/opt/m")
        #expect {
            try Policy.parse("[[limit]]\nname = \"x\"\ndaily = \"1m\"\nextension = \"mon\"\n", file: "p.toml")
        } throws: { error in
            "\(error)" == "p.toml:4:13: `extension` must be an absolute path to an executable, not \"mon\""
        }
    }

    @Test func terminateDefaultsToATenSecondGracePeriod() throws {
        let policy = try Policy.parse("[[limit]]\nname = \"video\"\ndaily = \"2h\"\nshield = \"terminate\"\n")
        #expect(policy.limits[0].shield == .terminate(grace: .seconds(10)))
        #expect(policy.limits[0].applications.isEmpty && policy.limits[0].categories.isEmpty)
    }

    @Test(arguments: [
        ("45s", 45), ("20m", 1200), ("2h", 7200), ("1h30m", 5400), ("1h5m30s", 3930), ("0s", 0), ("90m", 5400),
    ])
    func durationsAreRead(text: String, seconds: Int64) {
        #expect(DurationText.parse(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "1", "h", "1h30", "30m1h", "1h1h", "1.5h", "1d", "-5m", "1 h", "1H"])
    func malformedDurationsAreRefused(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test func defaultPathFollowsXDG() {
        #expect(
            Policy.defaultPath(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/a"])
                == "/cfg/screentime/policy.toml")
        #expect(Policy.defaultPath(environment: ["HOME": "/home/a"]) == "/home/a/.config/screentime/policy.toml")
        #expect(
            Policy.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/a"])
                == "/home/a/.config/screentime/policy.toml")
    }

    @Test func aMissingFileIsAnErrorNamingIt() {
        #expect(throws: PolicyError.self) { try Policy.load(from: "/nonexistent/policy.toml") }
    }
}
