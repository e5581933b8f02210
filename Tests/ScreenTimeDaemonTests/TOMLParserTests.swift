import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// The TOML 1.0 reader under the policy: every construct of the language is read, with its position.
@Suite struct TOMLParserTests {
    static func parse(_ text: String) throws -> TOMLDocument {
        let (document, errors) = TOMLParser.parse(text)
        #expect(errors.map(\.message) == [])
        return document
    }

    static func value(_ document: TOMLDocument, _ path: String...) throws -> TOMLValue.Kind {
        var table = document.root
        for key in path.dropLast() {
            guard case .table(let index) = try #require(table.entry(key)).value.kind else {
                Issue.record("`\(key)` is not a table")
                throw POSIXError(.EINVAL)
            }
            table = document[index]
        }
        return try #require(table.entry(path.last!)).value.kind
    }

    @Test func readsEveryKindOfValue() throws {
        let document = try Self.parse(
            #"""
            decimal = +1_000
            negative = -17
            hex = 0xDEAD_beef
            octal = 0o755
            binary = 0b1101_0110
            smallest = -9223372036854775808
            float = 6.626e-34
            fraction = -0.5
            exponent = 5E+2_2
            infinity = -inf
            not-a-number = nan
            yes = true
            no = false
            offset = 1979-05-27T07:32:00.999999-07:00
            utc = 1979-05-27 07:32:00Z
            local = 1979-05-27T00:32:00
            date = 2024-02-29
            time = 07:32:00.5
            basic = "tab\there \u00E9 \U0001F600 \"quoted\""
            literal = 'C:\Users\nobody'
            multi = """
            Roses are red \
                 and "violets" are ""blue"\"\""""
            multi-literal = '''
            first line
            'quoted' ''second'''''
            """#)
        #expect(try Self.value(document, "decimal") == .integer(1000))
        #expect(try Self.value(document, "negative") == .integer(-17))
        #expect(try Self.value(document, "hex") == .integer(0xDEAD_BEEF))
        #expect(try Self.value(document, "octal") == .integer(0o755))
        #expect(try Self.value(document, "binary") == .integer(0b1101_0110))
        #expect(try Self.value(document, "smallest") == .integer(.min))
        #expect(try Self.value(document, "float") == .float(6.626e-34))
        #expect(try Self.value(document, "fraction") == .float(-0.5))
        #expect(try Self.value(document, "exponent") == .float(5e22))
        #expect(try Self.value(document, "infinity") == .float(-.infinity))
        guard case .float(let nan) = try Self.value(document, "not-a-number") else { throw POSIXError(.EINVAL) }
        #expect(nan.isNaN)
        #expect(try Self.value(document, "yes") == .boolean(true))
        #expect(try Self.value(document, "no") == .boolean(false))
        #expect(
            try Self.value(document, "offset")
                == .dateTime(
                    TOMLDateTime(
                        date: .init(year: 1979, month: 5, day: 27),
                        time: .init(hour: 7, minute: 32, second: 0, nanosecond: 999_999_000), offsetMinutes: -420)))
        #expect(
            try Self.value(document, "utc")
                == .dateTime(
                    TOMLDateTime(
                        date: .init(year: 1979, month: 5, day: 27),
                        time: .init(hour: 7, minute: 32, second: 0, nanosecond: 0), offsetMinutes: 0)))
        #expect(
            try Self.value(document, "local")
                == .dateTime(
                    TOMLDateTime(
                        date: .init(year: 1979, month: 5, day: 27),
                        time: .init(hour: 0, minute: 32, second: 0, nanosecond: 0))))
        #expect(try Self.value(document, "date") == .dateTime(TOMLDateTime(date: .init(year: 2024, month: 2, day: 29))))
        #expect(
            try Self.value(document, "time")
                == .dateTime(TOMLDateTime(time: .init(hour: 7, minute: 32, second: 0, nanosecond: 500_000_000))))
        #expect(try Self.value(document, "basic") == .string("tab\there é 😀 \"quoted\""))
        #expect(try Self.value(document, "literal") == .string(#"C:\Users\nobody"#))
        #expect(try Self.value(document, "multi") == .string("Roses are red and \"violets\" are \"\"blue\"\"\""))
        #expect(try Self.value(document, "multi-literal") == .string("first line\n'quoted' ''second''"))
    }

    @Test func readsTablesDottedKeysInlineTablesAndArraysOfTables() throws {
        let document = try Self.parse(
            """
            fruit.apple.color = "red"   # dotted keys make tables
            "quoted key".'literal key' = 1
            point = { x = 1, y.z = 2 }
            empty = {}
            nested = [ [ 1, 2 ], [ "a", { b = [] } ], ]

            [a.b.c]
            deep = true
            [a]          # defines the table [a.b.c] made on its way
            shallow = true
            [fruit.apple.texture]   # a table under a dotted one
            smooth = true

            [[products]]
            name = "Hammer"
            [products.dimensions]
            size = 3
            [[products]]
            name = "Nail"
            """)
        #expect(try Self.value(document, "fruit", "apple", "color") == .string("red"))
        #expect(try Self.value(document, "quoted key", "literal key") == .integer(1))
        #expect(try Self.value(document, "point", "y", "z") == .integer(2))
        #expect(try Self.value(document, "a", "b", "c", "deep") == .boolean(true))
        #expect(try Self.value(document, "a", "shallow") == .boolean(true))
        #expect(try Self.value(document, "fruit", "apple", "texture", "smooth") == .boolean(true))
        guard case .array(let nested) = try Self.value(document, "nested") else { throw POSIXError(.EINVAL) }
        #expect(nested.count == 2)
        #expect(nested[0].position == SourcePosition(line: 5, column: 12))
        guard case .array(let products) = try Self.value(document, "products") else { throw POSIXError(.EINVAL) }
        #expect(products.count == 2)
        guard case .table(let hammer) = products[0].kind else { throw POSIXError(.EINVAL) }
        #expect(document[hammer].entry("name")?.value.kind == .string("Hammer"))
        guard case .table(let dimensions) = document[hammer].entry("dimensions")?.value.kind else {
            throw POSIXError(.EINVAL)
        }
        #expect(document[dimensions].entry("size")?.value.kind == .integer(3))
        #expect(document.root.entry("empty")?.value.position == SourcePosition(line: 4, column: 9))
    }

    @Test func acceptsCarriageReturnLineFeeds() throws {
        let document = try Self.parse("a = 1\r\nb = \"\"\"x\r\ny\"\"\"\r\n")
        #expect(try Self.value(document, "b") == .string("x\ny"))
    }

    @Test(arguments: [
        ("a = 1\nb = 0x\n", "`0x` is not a number"),
        ("a = 1_\n", "`1_` is not a number"),
        ("a = 1__0\n", "`1__0` is not a number"),
        ("a = +0x10\n", "`+0x10` is not a number"),
        ("a = 1.\n", "`1.` is not a number"),
        ("a = .5\n", "unknown value `.5`; strings need quotes: \".5\""),
        ("a = 9223372036854775808\n", "`9223372036854775808` is too large for a 64-bit integer"),
        (
            "a = 1979-05-27T25:00:00\n",
            "`1979-05-27T25:00:00` is not a date-time; write 1979-05-27, "
                + "1979-05-27T07:32:00 or 1979-05-27T07:32:00Z"
        ),
        ("a = \"\\uD800\"\n", "`\\uD800` is not a Unicode scalar value"),
        ("a = 'x\u{01}'\n", "control character U+0001 in a string; write it as an escape such as `\\u0007`"),
        ("a = 1\na = 2\n", "duplicate key `a`; it is already set on line 1"),
        ("[a]\n[a]\n", "table `[a]` is already defined on line 1"),
        ("a = 1\r\n\rb = 2\n", "a carriage return must be followed by a line feed"),
    ])
    func refusesInvalidTOML(text: String, message: String) {
        let (_, errors) = TOMLParser.parse(text)
        #expect(errors.map(\.message) == [message])
    }

    /// Keys are compared by code points, as TOML does: a precomposed and a decomposed "é" are two keys (Swift's
    /// `String` equality takes them for one, and the second was refused as a duplicate).
    @Test func keysDifferingInCodePointsAreTwoKeysEvenWhenCanonicallyEquivalent() throws {
        let document = try Self.parse("\"caf\u{E9}\" = 1\n\"cafe\u{301}\" = 2\n")
        #expect(document.root.entries.count == 2)
        #expect(try Self.value(document, "caf\u{E9}") == .integer(1))
        #expect(try Self.value(document, "cafe\u{301}") == .integer(2))
        let (_, errors) = TOMLParser.parse("\"caf\u{E9}\" = 1\n\"caf\u{E9}\" = 2\n")
        #expect(errors.map(\.message) == ["duplicate key `\"caf\u{E9}\"`; it is already set on line 1"])
    }

    /// Every broken line is reported, also lines right after another broken one; a broken array's own lines are not.
    @Test func reportsEveryBrokenLineOfARun() {
        let text =
            "[[limit]]\nname \"games\"\ndaily \"1h\"\napps [\"x\"]\nwarning = 5m\nb = [\n  \"x\"\n  \"y\",\n  1,\n]\n"
        let (_, errors) = TOMLParser.parse(text)
        #expect(errors.map(\.position.line) == [2, 3, 4, 5, 8])
    }
}
