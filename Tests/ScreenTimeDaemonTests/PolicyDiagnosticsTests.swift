import Foundation
import LinuxActivity
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// One read of a policy reports every mistake in it, each as `file:line:column: message`.
@Suite struct PolicyDiagnosticsTests {
    static func problems(_ text: String) -> [String] {
        guard case .failure(let error) = Policy.diagnose(text, file: "p.toml").result else { return [] }
        return error.problems.map(\.description)
    }

    @Test func twoBadLimitsAreTwoErrorsAtTheirPositions() {
        let text = """
            [[limit]]
            name = "games"
            daily = "0s"

            [[limit]]
            name = "video"
            daily = "25h"
            """
        #expect(
            Self.problems(text) == [
                "p.toml:3:9: `daily` must be longer than 0s",
                "p.toml:7:9: `daily` is 25h, more than a day; write at most \"24h\"",
            ])
        let error = #expect(throws: PolicyError.self) { try Policy.parse(text, file: "p.toml") }
        #expect(error?.description == Self.problems(text).joined(separator: "\n"))
        #expect(error?.line == 3 && error?.column == 9)
    }

    @Test func everySyntaxErrorIsReportedOncePerLineAndDecodingGoesOn() {
        let text = """
            always_allowed = ["a" "b"]
            [shield
            extra = 5m
            [[limit]]
            name = "games"
            daily = "1h30"
            dayly = "1h"
            apps = [
              "org.example.Game",
              broken,
              "supertuxkart"
            ]
            [[limit]]
            name = "games"
            daily = "1h"
            """
        #expect(
            Self.problems(text) == [
                "p.toml:1:23: expected `,` or `]` in the array, found `\"`",
                "p.toml:2:8: expected `]` to close the table header",
                "p.toml:3:9: `5m` is not a number",
                "p.toml:6:9: bad duration \"1h30\"; write hours, minutes and seconds like \"1h30m\", \"45s\", \"2h\"",
                "p.toml:7:1: unknown key `dayly` in [[limit]]; did you mean `daily`?",
                "p.toml:10:3: unknown value `broken`; strings need quotes: \"broken\"",
                "p.toml:14:8: duplicate limit name \"games\"; line 5 already uses it",
            ])
    }

    @Test func missingKeysAreReportedWhenNoSyntaxErrorCouldHaveHiddenThem() {
        #expect(
            Self.problems("[[limit]]\nname = \"a\"\n[[downtime]]\nname = \"b\"\nstart = \"21:00\"\n") == [
                "p.toml:1:1: [[limit]] needs `daily = \"…\"`, e.g. \"1h30m\"",
                "p.toml:3:1: [[downtime]] needs `end = \"HH:MM\"`",
            ])
        #expect(
            Self.problems("[[limit]]\nname = \"a\"\ndaily = 1h\n") == ["p.toml:3:9: `1h` is not a number"])
    }

    @Test func aDowntimeWhoseStartIsItsEndIsRefused() {
        #expect(
            Self.problems("[[downtime]]\nname = \"d\"\nstart = 07:00:00\nend = \"07:00\"\n") == [
                "p.toml:4:7: `end` equals `start`: the downtime would be empty"
            ])
    }

    @Test func misspeltKeysAndTablesGetASuggestion() {
        #expect(
            Self.problems("[sheild]\nextra = \"5m\"\n[[limits]]\nname = \"a\"\n") == [
                "p.toml:1:1: unknown table `[sheild]`; did you mean `shield`?",
                "p.toml:3:1: unknown table `[[limits]]`; did you mean `limit`?",
            ])
        #expect(
            Self.problems("[[downtime]]\nname = \"d\"\nStart = \"21:00\"\nend = \"07:00\"\nallowed = []\n") == [
                "p.toml:1:1: [[downtime]] needs `start = \"HH:MM\"`",
                "p.toml:3:1: unknown key `Start` in [[downtime]]; did you mean `start`?",
                "p.toml:5:1: unknown key `allowed` in [[downtime]]; did you mean `allow`?",
            ])
        #expect(KeySuggestion.distance("dayly", "daily") == 1)
        #expect(KeySuggestion.distance("gmaes", "games") == 1)
        #expect(KeySuggestion.distance("", "abc") == 3)
    }

    @Test func aPolicyMayUseAnyTOMLConstruct() throws {
        let policy = try Policy.parse(
            #"""
            # Everything TOML 1.0 offers that a policy can use.
            always_allowed = [
                "org.gnome.Calculator",  # a basic string
                'supertuxkart',          # a literal string
            ]
            shield.message = """
            Time's up \
                for today.
            Say "please"."""
            shield.extra = '15m'
            shield."extra_times" = 0x2

            downtime = [
              { name = "bedtime", start = 21:30:00, end = "07:00", allow = ['''org.gnome.Clocks'''] },
            ]

            [[limit]]
            name = "games"
            apps = ["org.example.Game",]
            daily = "1h30m"

            [[limit]]
            "name" = "video"
            daily = "2h"
            start = 08:00:00
            end = 15:00:30.5
            """#, file: "all.toml")
        #expect(policy.alwaysAllowed == [AppID("org.gnome.Calculator"), AppID("supertuxkart")])
        #expect(policy.shield == Policy.ShieldSettings(message: "Time's up for today.\nSay \"please\".", extraTime: .seconds(900), extraTimesPerDay: 2))
        #expect(
            policy.downtimes == [
                Policy.Downtime(
                    name: "bedtime", start: Policy.TimeOfDay(hour: 21, minute: 30),
                    end: Policy.TimeOfDay(hour: 7, minute: 0), allowed: [AppID("org.gnome.Clocks")])
            ])
        #expect(policy.limits.map(\.name) == ["games", "video"])
        #expect(policy.limits[1].window?.end == Policy.TimeOfDay(hour: 15, minute: 0, second: 30))
    }

    @Test func appsNoDesktopEntryOrExecutableProvidesAreWarnings() throws {
        let scratch = try ScratchDirectory()
        let applications = scratch.path + "/data/applications"
        let bin = scratch.path + "/bin"
        for directory in [applications, bin] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try "[Desktop Entry]\nType=Application\nName=Game\nExec=game-binary %U\n".write(
            toFile: applications + "/org.example.Game.desktop", atomically: true, encoding: .utf8)
        try "#!/bin/sh\n".write(toFile: bin + "/mytool", atomically: true, encoding: .utf8)
        chmod(bin + "/mytool", 0o755)
        try "#!/bin/sh\n".write(toFile: bin + "/not-executable", atomically: true, encoding: .utf8)
        let diagnosis = Policy.diagnose(
            """
            always_allowed = ["mytool", "org.example.Game.desktop"]
            [[limit]]
            name = "games"
            apps = ["org.example.Gaem", "game-binary", "not-executable", "org.example.Gaem"]
            daily = "1h"
            """, file: "p.toml")
        let policy = try diagnosis.get()
        #expect(policy.limits[0].applications.count == 3)
        let index = DesktopEntryIndex(dataDirectories: [scratch.path + "/data"])
        let warnings = Policy.unknownApplicationWarnings(
            diagnosis.applications,
            isKnown: { index.entries[$0.rawValue] != nil || index.entry(forExecutable: $0.rawValue) != nil },
            searchPath: [bin, "/nonexistent"])
        let hint = "; check the spelling (`screentime apps` lists the apps seen)"
        #expect(
            warnings.map(\.description) == [
                "p.toml:4:9: warning: no desktop entry and no executable on PATH is named \"org.example.Gaem\"" + hint,
                "p.toml:4:44: warning: no desktop entry and no executable on PATH is named \"not-executable\"" + hint,
                "p.toml:4:62: warning: no desktop entry and no executable on PATH is named \"org.example.Gaem\"" + hint,
            ])
    }
}
