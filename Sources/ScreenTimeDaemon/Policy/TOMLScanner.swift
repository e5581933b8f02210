/// A mistake in TOML syntax at one position; the parser turns it into a `PolicyError.Problem`.
struct TOMLSyntaxError: Error, Sendable {
    var position: SourcePosition
    var message: String
}

/// A cursor over a TOML text's Unicode scalars that knows its line and column, with the lexical pieces of TOML 1.0:
/// whitespace, newlines, comments, keys and the four kinds of strings. Values are in `TOMLScanner+Values.swift`.
struct TOMLScanner {
    private let scalars: [Unicode.Scalar]
    private(set) var index = 0
    private(set) var line = 1
    private var lineStart = 0

    init(_ text: String) {
        self.scalars = Array(text.unicodeScalars)
    }

    // MARK: Moving

    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    var isAtEnd: Bool { index >= scalars.count }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    /// Whether the text at the cursor starts with `prefix`.
    func looksAt(_ prefix: String) -> Bool {
        var offset = 0
        for scalar in prefix.unicodeScalars {
            guard peek(offset) == scalar else { return false }
            offset += 1
        }
        return true
    }

    var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    /// Moves past `count` scalars on the current line (never past a line feed: `consumeNewline` does that).
    mutating func advance(_ count: Int = 1) { index = min(index + count, scalars.count) }

    func error(_ message: String, at position: SourcePosition? = nil) -> TOMLSyntaxError {
        TOMLSyntaxError(position: position ?? self.position, message: message)
    }

    // MARK: Whitespace, newlines, comments

    static func isNewline(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    var atNewline: Bool { current.map(Self.isNewline) ?? false }

    mutating func skipSpaces() {
        while current == " " || current == "\t" { advance() }
    }

    /// Moves past `\n` or `\r\n`.
    mutating func consumeNewline() throws(TOMLSyntaxError) {
        if current == "\r" {
            guard peek(1) == "\n" else { throw error("a carriage return must be followed by a line feed") }
            advance()
        }
        advance()
        line += 1
        lineStart = index
    }

    mutating func skipComment() throws(TOMLSyntaxError) {
        advance()  // #
        while let scalar = current, !Self.isNewline(scalar) {
            if Self.isControl(scalar) { throw error("control character U+\(Self.hex(scalar.value)) in a comment") }
            advance()
        }
    }

    /// Skips spaces, comments and line ends, as inside an array.
    mutating func skipBlank() throws(TOMLSyntaxError) {
        while let scalar = current {
            if scalar == " " || scalar == "\t" {
                advance()
            } else if Self.isNewline(scalar) {
                try consumeNewline()
            } else if scalar == "#" {
                try skipComment()
            } else {
                return
            }
        }
    }

    /// Skips spaces and a comment, then expects the end of the line (or of the text) and moves past it.
    mutating func expectEndOfLine() throws(TOMLSyntaxError) {
        skipSpaces()
        if current == "#" { try skipComment() }
        guard let scalar = current else { return }
        guard Self.isNewline(scalar) else { throw error("expected the end of the line, found `\(scalar)`") }
        try consumeNewline()
    }

    /// Moves to the start of the next line whatever is on this one (error recovery: strings are not looked into).
    mutating func skipRestOfLine() {
        while let scalar = current, scalar != "\n" { advance() }
        if current == "\n" {
            advance()
            line += 1
            lineStart = index
        }
    }

    // MARK: Keys

    static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || scalar == "_" || scalar == "-"
    }

    /// A dotted key, `a`, `a.b`, `"a b".'c'`, as its parts with the position of each.
    mutating func parseKey() throws(TOMLSyntaxError) -> [(name: String, position: SourcePosition)] {
        var parts: [(name: String, position: SourcePosition)] = []
        while true {
            let start = position
            parts.append((try parseSimpleKey(), start))
            skipSpaces()
            guard current == "." else { return parts }
            advance()
            skipSpaces()
        }
    }

    private mutating func parseSimpleKey() throws(TOMLSyntaxError) -> String {
        if current == "\"" {
            if looksAt("\"\"\"") { throw error("a key cannot be a multi-line string") }
            return try parseBasicString()
        }
        if current == "'" {
            if looksAt("'''") { throw error("a key cannot be a multi-line string") }
            return try parseLiteralString()
        }
        var key = ""
        while let scalar = current, Self.isBareKeyScalar(scalar) {
            key.unicodeScalars.append(scalar)
            advance()
        }
        guard key.isEmpty else { return key }
        guard let scalar = current, !Self.isNewline(scalar) else { throw error("expected a key") }
        throw error("expected a key, found `\(scalar)`; quote keys that are not letters, digits, `_` and `-`")
    }

    // MARK: Strings

    /// A `"basic string"` with escapes, on one line.
    mutating func parseBasicString() throws(TOMLSyntaxError) -> String {
        advance()  // "
        var text = ""
        while true {
            guard let scalar = current, !Self.isNewline(scalar) else {
                throw error("unterminated string; close it with `\"` on the same line")
            }
            if scalar == "\"" {
                advance()
                return text
            }
            if scalar == "\\" {
                text.unicodeScalars.append(try parseEscape())
                continue
            }
            if Self.isControl(scalar) { throw controlCharacterInString(scalar) }
            text.unicodeScalars.append(scalar)
            advance()
        }
    }

    /// A `'literal string'`, on one line, without escapes.
    mutating func parseLiteralString() throws(TOMLSyntaxError) -> String {
        advance()  // '
        var text = ""
        while true {
            guard let scalar = current, !Self.isNewline(scalar) else {
                throw error("unterminated string; close it with `'` on the same line")
            }
            advance()
            if scalar == "'" { return text }
            if Self.isControl(scalar) { throw controlCharacterInString(scalar) }
            text.unicodeScalars.append(scalar)
        }
    }

    /// A `"""multi-line basic"""` or `'''multi-line literal'''` string: a line end right after the opening quotes
    /// is dropped; in a basic one, a `\` at the end of a line drops the line end and the blanks after it.
    mutating func parseMultiLineString(literal: Bool) throws(TOMLSyntaxError) -> String {
        let quote: Unicode.Scalar = literal ? "'" : "\""
        let start = position
        advance(3)
        if atNewline { try consumeNewline() }
        var text = ""
        while true {
            guard let scalar = current else {
                throw error("unterminated multi-line string; close it with `\(quote)\(quote)\(quote)`", at: start)
            }
            if scalar == quote && peek(1) == quote && peek(2) == quote {
                // Up to two more quotes right before the closing three belong to the string.
                var extra = 0
                while extra < 2 && peek(3 + extra) == quote { extra += 1 }
                for _ in 0..<extra { text.unicodeScalars.append(quote) }
                advance(3 + extra)
                return text
            }
            if Self.isNewline(scalar) {
                try consumeNewline()
                text.unicodeScalars.append("\n")
            } else if scalar == "\\" && !literal {
                if try skipLineEndingBackslash() { continue }
                text.unicodeScalars.append(try parseEscape())
            } else {
                if Self.isControl(scalar) { throw controlCharacterInString(scalar) }
                text.unicodeScalars.append(scalar)
                advance()
            }
        }
    }

    /// At a `\` followed by blanks and a line end: skips it and every blank and line end after; else stays put.
    private mutating func skipLineEndingBackslash() throws(TOMLSyntaxError) -> Bool {
        var offset = 1
        while peek(offset) == " " || peek(offset) == "\t" { offset += 1 }
        guard let next = peek(offset), Self.isNewline(next) else { return false }
        advance(offset)
        while let scalar = current, scalar == " " || scalar == "\t" || Self.isNewline(scalar) {
            if Self.isNewline(scalar) { try consumeNewline() } else { advance() }
        }
        return true
    }

    private mutating func parseEscape() throws(TOMLSyntaxError) -> Unicode.Scalar {
        let start = position
        advance()  // \
        guard let scalar = current, !Self.isNewline(scalar) else { throw error("unterminated escape", at: start) }
        advance()
        switch scalar {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let digit = current, let digitValue = Self.hexDigitValue(digit) else {
                    throw error("`\\\(scalar)` needs \(count) hexadecimal digits, e.g. `\\u00E9`", at: start)
                }
                value = value &* 16 &+ digitValue
                advance()
            }
            guard let result = Unicode.Scalar(value) else {
                throw error("`\\\(scalar)\(Self.hex(value))` is not a Unicode scalar value", at: start)
            }
            return result
        default:
            throw error("unknown escape `\\\(scalar)`; write `\\\\` for a backslash", at: start)
        }
    }

    private func controlCharacterInString(_ scalar: Unicode.Scalar) -> TOMLSyntaxError {
        error("control character U+\(Self.hex(scalar.value)) in a string; write it as an escape such as `\\u0007`")
    }

    // MARK: Characters

    /// The control characters TOML refuses in comments and strings: all but tab (line ends are handled apart).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    static func hexDigitValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 0x30
        case "a"..."f": scalar.value - 0x61 + 10
        case "A"..."F": scalar.value - 0x41 + 10
        default: nil
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
