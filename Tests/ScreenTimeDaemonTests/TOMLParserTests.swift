import Foundation
import Testing

@testable import ScreenTimeDaemon

/// Valid TOML 1.0 is read; nothing crashes the reader.
@Suite struct TOMLParserTests {
    @Test func aPolicyUsingEveryTOMLFormIsAccepted() throws {
        let policy = try Policy.parse(
            #"""
            # comments anywhere
            always_allowed = [
                "org.gnome.Calculator",  # a trailing comment
                'org.gnome.Clocks',      # a literal string
            ]

            [[limit]]
            name = """
            games"""
            apps = ['supertuxkart', "org.example.Game",]
            daily = '1h30m'
            warning = "5m"

            [[downtime]]
            "name" = "bedtime"
            start = "21:30"
            end = "07:00"

            [shield]
            message = """
            Time's up \
                for today."""
            extra = "15m"
            extra_times = 0x2
            """#, file: "full.toml")
        #expect(policy.alwaysAllowed.map(\.rawValue) == ["org.gnome.Calculator", "org.gnome.Clocks"])
        #expect(policy.limits.first?.name == "games")
        #expect(policy.limits.first?.applications.map(\.rawValue) == ["supertuxkart", "org.example.Game"])
        #expect(policy.downtimes.first?.name == "bedtime")
        #expect(policy.shield.message == "Time's up for today.")
        #expect(policy.shield.extraTimesPerDay == 2)
    }

    @Test func valuesOfEveryTypeParse() throws {
        let document = try TOMLParser.parse(
            """
            int = +1_000
            hex = 0xDEAD_beef
            oct = 0o755
            bin = 0b1101
            float = -3.25e2
            inf = inf
            offset = 1979-05-27T07:32:00Z
            local = 1979-05-27 07:32:00.999
            date = 1979-05-27
            time = 07:32:00
            inline = { a = 1, b.c = "x", d = [1, 2] }
            dotted.x = 1
            dotted.y = 2
            multi = '''
            raw \\n text'''
            [table.with.dots]
            key = true
            """, file: "values.toml")
        let root = document.root
        #expect(root.entry("int")?.value.kind == .integer(1000))
        #expect(root.entry("hex")?.value.kind == .integer(0xDEAD_BEEF))
        #expect(root.entry("oct")?.value.kind == .integer(0o755))
        #expect(root.entry("bin")?.value.kind == .integer(13))
        #expect(root.entry("float")?.value.kind == .float(-325))
        #expect(root.entry("inf")?.value.kind == .float(.infinity))
        #expect(root.entry("offset")?.value.kind == .dateTime("1979-05-27T07:32:00Z"))
        #expect(root.entry("local")?.value.kind == .dateTime("1979-05-27 07:32:00.999"))
        #expect(root.entry("date")?.value.kind == .dateTime("1979-05-27"))
        #expect(root.entry("time")?.value.kind == .dateTime("07:32:00"))
        guard case .table(let inline)? = root.entry("inline")?.value.kind else {
            Issue.record("inline is not a table")
            return
        }
        #expect(inline.map(\.key) == ["a", "b", "d"])
        guard case .table(let dotted)? = root.entry("dotted")?.value.kind else {
            Issue.record("dotted is not a table")
            return
        }
        #expect(dotted.map(\.key) == ["x", "y"])
        #expect(root.entry("multi")?.value.kind == .string("raw \\n text"))
        #expect(document.tables["table.with.dots"]?.entry("key")?.value.kind == .boolean(true))
    }

    @Test(arguments: ["a = 0x", "a = 1__0", "a = 01", "a = 1979-13", "a = { b = 1", "a = \"\"\"open", "a = 1.", "a.b = 1\na.b = 2"])
    func invalidValuesAreErrors(text: String) {
        #expect(throws: PolicyError.self) { try TOMLParser.parse(text, file: "bad.toml") }
    }

    @Test func inlineTablesNestedDeeperThanTheLimitAreRefused() {
        let text = "a = " + String(repeating: "{ b = ", count: 20_000) + "1" + String(repeating: " }", count: 20_000)
        #expect(throws: PolicyError.self) { try TOMLParser.parse(text, file: "deep.toml") }
    }

    /// Random bytes and mutations of a valid file: every input ends in a document or a `PolicyError`.
    @Test func noInputCrashesTheReader() {
        var generator = SplitMix(seed: 0x5EED)
        let seed = Array(Policy.commentedExample.utf8)
        let alphabet = Array("[]{}\"'=.,#\\\n \t0123456789abcxyz_-+:eE".utf8)
        for round in 0..<3000 {
            var bytes = seed
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: index)
                }
            }
            if round % 10 == 0 { bytes = (0..<200).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
            _ = try? Policy.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.toml")
        }
    }
}

/// A small deterministic generator, so a failing input can be found again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
