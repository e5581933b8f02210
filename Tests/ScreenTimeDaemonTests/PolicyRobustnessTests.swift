import Foundation
import Glibc
import Testing

@testable import ScreenTimeDaemon

/// No text makes the policy reader crash: deep nesting is refused with an error, random bytes and damaged policies
/// come back as positioned problems.
@Suite struct PolicyRobustnessTests {
    static let depth = 20000
    static let nestingMessage =
        "nested more than 64 levels deep (arrays, inline tables and key parts); flatten the value"

    @Test func aTwentyThousandDeepArrayIsRefusedAtItsSixtyFifthLevel() throws {
        let text = "a = " + String(repeating: "[", count: Self.depth) + String(repeating: "]", count: Self.depth) + "\n"
        let error = #expect(throws: PolicyError.self) { try Policy.parse(text, file: "deep.toml") }
        #expect(error?.description == "deep.toml:1:69: " + Self.nestingMessage)
    }

    @Test func aTwentyThousandDeepArrayInAFileIsRefused() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/policy.toml"
        let text =
            "always_allowed = []\na = " + String(repeating: "[", count: Self.depth) + "\n[shield]\nextra = \"1x\"\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: PolicyError.self) { try Policy.load(from: path) }
        #expect(
            error?.problems.map(\.description) == [
                "\(path):2:69: " + Self.nestingMessage,
                "\(path):4:9: bad duration \"1x\"; write hours, minutes and seconds like \"1h30m\", \"45s\", \"2h\"",
            ])
    }

    @Test func aFIFOInThePolicysPlaceIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/policy.toml"
        try #require(mkfifo(path, 0o600) == 0)
        let diagnosis = Policy.diagnose(fileAt: path)
        #expect(throws: PolicyError.self) { try diagnosis.get() }
        #expect("\(diagnosis.result)".contains("not a regular file"))
    }

    @Test func aFileOverOneMebibyteIsRefused() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/policy.toml"
        try Data(repeating: UInt8(ascii: "#"), count: Policy.maximumFileBytes + 1).write(to: URL(fileURLWithPath: path))
        #expect("\(Policy.diagnose(fileAt: path).result)".contains("over 1 MiB"))
    }

    @Test func aFileThatIsNotUTF8IsRefusedAtItsFirstBadByte() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/policy.toml"
        let bytes: [UInt8] = Array("[shield]\nmessage = \"caf".utf8) + [0xE9] + Array("\"\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: PolicyError.self) { try Policy.load(from: path) }
        #expect(error?.description == "\(path):2:15: the file is not UTF-8 text; save it as UTF-8")
        try Data([0xEF, 0xBB, 0xBF] + Array("always_allowed = [\"a\"]\n".utf8)).write(to: URL(fileURLWithPath: path))
        #expect(try Policy.load(from: path).alwaysAllowed.map(\.rawValue) == ["a"])
    }

    @Test func deepInlineTablesTableNamesAndDottedKeysAreRefused() {
        let cases = [
            "a = " + String(repeating: "{ b = ", count: Self.depth) + "1" + String(repeating: " }", count: Self.depth),
            "[" + Array(repeating: "a", count: Self.depth).joined(separator: ".") + "]",
            "[[" + Array(repeating: "a", count: Self.depth).joined(separator: ".") + "]]",
            Array(repeating: "a", count: Self.depth).joined(separator: ".") + " = 1",
            "a = " + String(repeating: "[{b=", count: Self.depth),
        ]
        for text in cases {
            let (_, errors) = TOMLParser.parse(text)
            #expect(errors.map(\.message) == [Self.nestingMessage])
        }
    }

    @Test func sixtyFourLevelsAreAccepted() {
        let arrays = "a = " + String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64)
        let tables = "[" + Array(repeating: "t", count: 64).joined(separator: ".") + "]"
        #expect(TOMLParser.parse(arrays).errors.isEmpty)
        #expect(TOMLParser.parse(tables).errors.isEmpty)
        #expect(TOMLParser.parse("a = [" + String(repeating: "[", count: 64) + "]]").errors.count == 1)
    }

    /// SplitMix64: a small generator with a fixed seed, so a failure replays.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Bytes that mean something in TOML, so random texts reach deep into the reader.
    static let alphabet =
        Array("[]{}=,.\"'#\\\n\r\t :-+_0123456789abcdefxobtruelnaiTZ".utf8) + [0, 0x7F, 0xC3, 0xA9, 0xFF]

    @Test func randomAndDamagedTextsNeverCrashAndAreReportedInsideTheText() throws {
        let scratch = try ScratchDirectory()
        var random = Generator(state: 0x5EED_2026)
        let valid = Array(Policy.commentedExample.utf8)
        var refused = 0
        for iteration in 0..<4000 {
            var bytes: [UInt8]
            switch iteration % 3 {
            case 0:
                bytes = (0..<random.below(300)).map { _ in
                    random.below(4) == 0 ? UInt8(random.below(256)) : Self.alphabet[random.below(Self.alphabet.count)]
                }
            default:
                bytes = valid
                for _ in 0...random.below(6) {
                    let at = random.below(bytes.count)
                    switch random.below(4) {
                    case 0: bytes.remove(at: at)
                    case 1: bytes.insert(Self.alphabet[random.below(Self.alphabet.count)], at: at)
                    case 2: bytes[at] = UInt8(random.below(256))
                    default:
                        bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "["), count: random.below(200)), at: at)
                    }
                }
            }
            if iteration % 50 == 0 {
                // Through a file too, where bytes that are not UTF-8 are refused rather than replaced.
                let path = scratch.path + "/fuzz.toml"
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                if case .failure(let error) = Policy.diagnose(fileAt: path).result {
                    #expect(error.problems.allSatisfy { $0.file == path && $0.line >= 1 && $0.column >= 1 })
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            guard case .failure(let error) = Policy.diagnose(text, file: "f.toml").result else { continue }
            refused += 1
            for problem in error.problems {
                let inside =
                    problem.line >= 1 && problem.line <= lines.count && problem.column >= 1
                    && problem.column <= lines[problem.line - 1].count + 1
                #expect(inside, "iteration \(iteration): \(problem) is outside the text")
                #expect(!problem.message.isEmpty)
            }
        }
        #expect(refused > 2000)
    }
}
