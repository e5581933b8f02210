import Testing

@testable import ScreenTimeDaemon

/// Each mistake is reported as `file:line:column: message`, at the exact place.
@Suite struct PolicyErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var text: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { name }
    }

    static let limit = "[[limit]]\nname = \"games\"\n"

    static let cases: [Case] = [
        Case(
            name: "unknown top-level key", text: "always_alowed = []\n", line: 1, column: 1,
            message: "unknown key `always_alowed` in the top level; did you mean `always_allowed`?"),
        Case(
            name: "unknown key far from any", text: "colour = 1\n", line: 1, column: 1,
            message: "unknown key `colour` in the top level; expected one of: always_allowed, limit, downtime, shield"),
        Case(
            name: "unknown key in a limit", text: limit + "daily = \"1h\"\ndayly = \"2h\"\n", line: 4, column: 1,
            message: "unknown key `dayly` in [[limit]]; did you mean `daily`?"),
        Case(
            name: "unknown key far from any in a limit", text: limit + "daily = \"1h\"\nbudget = \"2h\"\n", line: 4,
            column: 1,
            message: "unknown key `budget` in [[limit]]; expected one of: "
                + "name, apps, categories, daily, warning, shield, grace, start, end, extension"),
        Case(
            name: "misspelt category", text: limit + "daily = \"1h\"\ncategories = [\"gmaes\"]\n", line: 4,
            column: 15, message: "unknown category \"gmaes\"; did you mean \"games\"?"),
        Case(
            name: "wrong type", text: limit + "daily = 90\n", line: 3, column: 9,
            message: "`daily` must be a duration string like \"20m\" or \"1h30m\", not an integer"),
        Case(
            name: "array of non-strings", text: limit + "daily = \"1h\"\napps = [\"a\", 2]\n", line: 4, column: 14,
            message: "`apps` must hold only strings, found an integer"),
        Case(
            name: "unknown category", text: limit + "daily = \"1h\"\ncategories = [\"games\", \"sport\"]\n", line: 4,
            column: 24,
            message: "unknown category \"sport\"; valid categories: games, social, entertainment, creativity, "
                + "education, productivity-finance, information-reading, health-fitness, utilities, shopping-food, "
                + "travel, web-browsers, developer-tools, other"),
        Case(
            name: "bad duration", text: limit + "daily = \"1h30\"\n", line: 3, column: 9,
            message: "bad duration \"1h30\"; write hours, minutes and seconds like \"1h30m\", \"45s\", \"2h\""),
        Case(
            name: "warning not shorter than daily", text: limit + "daily = \"10m\"\nwarning = \"10m\"\n", line: 4,
            column: 11, message: "`warning` must be shorter than `daily` (10m)"),
        Case(
            name: "duplicate limit name", text: limit + "daily = \"1h\"\n" + limit + "daily = \"2h\"\n", line: 5,
            column: 8, message: "duplicate limit name \"games\"; line 2 already uses it"),
        Case(
            name: "duplicate downtime name",
            text: "[[downtime]]\nname = \"a\"\nstart = \"21:00\"\nend = \"07:00\"\n"
                + "[[downtime]]\nname = \"a\"\nstart = \"12:00\"\nend = \"13:00\"\n",
            line: 6, column: 8, message: "duplicate downtime name \"a\"; line 2 already uses it"),
        Case(
            name: "missing daily", text: limit, line: 1, column: 1,
            message: "[[limit]] needs `daily = \"…\"`, e.g. \"1h30m\""),
        Case(
            name: "missing name", text: "[[limit]]\ndaily = \"1h\"\n", line: 1, column: 1,
            message: "[[limit]] needs a `name = \"…\"`"),
        Case(
            name: "unknown shield", text: limit + "daily = \"1h\"\nshield = \"block\"\n", line: 4, column: 10,
            message: "unknown shield \"block\"; expected \"freeze\" or \"terminate\""),
        Case(
            name: "bad time", text: "[[downtime]]\nname = \"a\"\nstart = \"25:00\"\nend = \"07:00\"\n", line: 3,
            column: 9, message: "bad time \"25:00\"; write 24-hour HH:MM (or HH:MM:SS), e.g. \"07:00\""),
        Case(
            name: "signed time", text: "[[downtime]]\nname = \"a\"\nstart = \"+1:-0\"\nend = \"07:00\"\n", line: 3,
            column: 9, message: "bad time \"+1:-0\"; write 24-hour HH:MM (or HH:MM:SS), e.g. \"07:00\""),
        Case(
            name: "app with a path", text: "always_allowed = [\"/usr/bin/foo\"]\n", line: 1, column: 19,
            message: "\"/usr/bin/foo\" is not an app name; use a desktop-entry id (org.gnome.Calculator) or an "
                + "executable's file name without a path (supertuxkart)"),
        Case(
            name: "single-bracket limit", text: "[limit]\nname = \"a\"\n", line: 1, column: 1,
            message: "unknown table `[limit]`; write `[[limit]]`: there can be several"),
        Case(
            name: "double-bracket shield", text: "[[shield]]\n", line: 1, column: 1,
            message: "unknown table `[[shield]]`; write `[shield]`: there is only one"),
        Case(
            name: "extra_times out of range", text: "[shield]\nextra_times = -1\n", line: 2, column: 15,
            message: "`extra_times` must be between 0 and 100"),
        Case(
            name: "grace without terminate", text: limit + "daily = \"1h\"\ngrace = \"5s\"\n", line: 4, column: 9,
            message: "`grace` applies only to `shield = \"terminate\"`"),
        Case(
            name: "empty downtime", text: "[[downtime]]\nname = \"a\"\nstart = \"07:00\"\nend = \"07:00\"\n", line: 4,
            column: 7, message: "`end` equals `start`: the downtime would be empty"),
        // The TOML layer.
        Case(
            name: "duplicate key", text: "[shield]\nextra = \"5m\"\nextra = \"10m\"\n", line: 3, column: 1,
            message: "duplicate key `extra`; it is already set on line 2"),
        Case(
            name: "table defined twice", text: "[shield]\n[shield]\n", line: 2, column: 1,
            message: "table `[shield]` is already defined on line 1"),
        Case(
            name: "unterminated string", text: "[shield]\nmessage = \"hello\n", line: 2, column: 17,
            message: "unterminated string; close it with `\"` on the same line"),
        Case(
            name: "unknown escape", text: "[shield]\nmessage = \"a\\qb\"\n", line: 2, column: 13,
            message: "unknown escape `\\q`; write `\\\\` for a backslash"),
        Case(
            name: "bare word", text: "[shield]\nmessage = hello\n", line: 2, column: 11,
            message: "unknown value `hello`; strings need quotes: \"hello\""),
        Case(
            name: "float", text: "[shield]\nextra_times = 1.5\n", line: 2, column: 15,
            message: "`extra_times` must be an integer, not a float"),
        Case(
            name: "unquoted time", text: "[[downtime]]\nstart = 21:30\n", line: 2, column: 9,
            message: "`21:30` is not a time; write HH:MM:SS (21:30:00), or quote it: \"21:30\""),
        Case(
            name: "inline table on two lines", text: "shield = { extra = \"5m\",\n}\n", line: 1, column: 25,
            message: "unterminated inline table; close it with `}` on the same line (or use a `[table]` for many keys)"),
        Case(
            name: "trailing comma in an inline table", text: "shield = { extra = \"5m\", }\n", line: 1, column: 26,
            message: "a comma may not end an inline table; remove it"),
        Case(
            name: "header into a dotted table", text: "shield.extra = \"5m\"\n[shield]\n", line: 2, column: 1,
            message: "`shield` is already defined on line 1 as a table by dotted keys; `[shield]` cannot define it"),
        Case(
            name: "dotted key into an inline table", text: "shield = { extra = \"5m\" }\nshield.extra_times = 2\n",
            line: 2, column: 1,
            message: "`shield` is already defined on line 1 as an inline table; a dotted key cannot add to it"),
        Case(
            name: "table through a value", text: "always_allowed = []\n[always_allowed.x]\n", line: 2, column: 1,
            message: "`always_allowed` is already defined on line 1 as an array; "
                + "it cannot hold the table `[always_allowed.x]`"),
        Case(
            name: "array of tables over an array", text: "limit = []\n[[limit]]\n", line: 2, column: 1,
            message: "`limit` is already defined on line 1 as an array; `[[limit]]` cannot add to it"),
        Case(
            name: "leading zero", text: "[shield]\nextra_times = 02\n", line: 2, column: 15,
            message: "`02`: leading zeros are not allowed"),
        Case(
            name: "bad date", text: "when = 2024-02-30\n", line: 1, column: 8,
            message: "`2024-02-30` is not a date-time; write 1979-05-27, 1979-05-27T07:32:00 or 1979-05-27T07:32:00Z"),
        Case(
            name: "unterminated multi-line string", text: "[shield]\nmessage = \"\"\"\nabc\n", line: 2, column: 11,
            message: "unterminated multi-line string; close it with `\"\"\"`"),
        Case(
            name: "zero daily limit", text: limit + "daily = \"0s\"\n", line: 3, column: 9,
            message: "`daily` must be longer than 0s"),
        Case(
            name: "daily limit over a day", text: limit + "daily = \"24h1s\"\n", line: 3, column: 9,
            message: "`daily` is 24h1s, more than a day; write at most \"24h\""),
        Case(
            name: "empty apps", text: limit + "daily = \"1h\"\napps = []\n", line: 4, column: 8,
            message: "`apps` is empty; name at least one app, or leave `apps` out to count by `categories` alone"),
        Case(
            name: "empty categories", text: limit + "daily = \"1h\"\ncategories = []\n", line: 4, column: 14,
            message:
                "`categories` is empty; name at least one category, or leave `categories` out (a limit without `apps` "
                + "and `categories` counts all use)"),
        Case(
            name: "missing equals", text: "[shield]\nextra \"5m\"\n", line: 2, column: 7,
            message: "expected `=` after the key `extra`"),
        Case(
            name: "trailing garbage", text: "[shield]\nextra = \"5m\" x\n", line: 2, column: 14,
            message: "expected the end of the line, found `x`"),
        Case(
            name: "unterminated array", text: "always_allowed = [\"a\",\n", line: 2, column: 1,
            message: "unterminated array; close it with `]`"),
        Case(
            name: "missing comma", text: "always_allowed = [\"a\" \"b\"]\n", line: 1, column: 23,
            message: "expected `,` or `]` in the array, found `\"`"),
        Case(
            name: "unclosed header", text: "[shield\n", line: 1, column: 8,
            message: "expected `]` to close the table header"),
    ]

    @Test(arguments: cases)
    func reportsTheMistakeAtItsPosition(_ testCase: Case) {
        let error = #expect(throws: PolicyError.self) { try Policy.parse(testCase.text, file: "policy.toml") }
        #expect(error?.description == "policy.toml:\(testCase.line):\(testCase.column): \(testCase.message)")
    }

    @Test func multiLineArraysWithCommentsAndTrailingCommasAreAccepted() throws {
        let policy = try Policy.parse(
            """
            always_allowed = [
                "org.gnome.Calculator",  # the calculator
                'supertuxkart',
            ]
            """)
        #expect(policy.alwaysAllowed.map(\.rawValue) == ["org.gnome.Calculator", "supertuxkart"])
    }
}
