/// A strict parser for the subset of TOML that policy files use: comments, `key = value`, `[table]` and
/// `[[array-of-tables]]` with bare names, basic strings with escapes, literal strings, integers, booleans and
/// arrays (which may span lines). Everything else (floats, dates, inline tables, dotted keys, multi-line
/// strings) is refused with a message that names the construct and its position.
struct TOMLParser {
    private let scalars: [Unicode.Scalar]
    private let file: String
    private var index = 0
    /// How many arrays the parser is inside; past `maximumNesting` the value is refused rather than parsed.
    private var depth = 0
    private var line = 1
    private var lineStart = 0

    init(_ text: String, file: String) {
        self.scalars = Array(text.unicodeScalars)
        self.file = file
    }

    /// Arrays nested deeper than this are refused: no policy needs more than two levels, and each level costs stack.
    static let maximumNesting = 32

    /// Parses the whole text.
    static func parse(_ text: String, file: String) throws(PolicyError) -> TOMLDocument {
        var parser = TOMLParser(text, file: file)
        return try parser.parseDocument()
    }

    // MARK: Document

    private enum Target {
        case root
        case table(String)
        case tableArray(String)
    }

    private mutating func parseDocument() throws(PolicyError) -> TOMLDocument {
        var document = TOMLDocument(root: TOMLTable(position: SourcePosition(line: 1, column: 1)))
        var headers: [String: SourcePosition] = [:]
        var target = Target.root
        while true {
            skipSpaces()
            guard let scalar = current else { break }
            if isNewline(scalar) {
                try consumeNewline()
                continue
            }
            if scalar == "#" {
                try skipComment()
                continue
            }
            if scalar == "[" {
                let start = position
                let isArray = peek(1) == "["
                advance(isArray ? 2 : 1)
                skipSpaces()
                let name = try parseKey()
                skipSpaces()
                if current == "." {
                    throw error("nested table names such as `[\(name).…]` are not supported; use `[\(name)]`")
                }
                for _ in 0..<(isArray ? 2 : 1) {
                    guard current == "]" else {
                        throw error("expected `\(isArray ? "]]" : "]")` to close the table header")
                    }
                    advance()
                }
                if document.root.entry(name) != nil {
                    throw PolicyError(at: start, in: file, "`\(name)` is already a key of the top level")
                }
                if isArray {
                    if let first = headers[name], document.tables[name] != nil {
                        throw PolicyError(
                            at: start, in: file,
                            "`[[\(name)]]` conflicts with the table `[\(name)]` on line \(first.line)")
                    }
                    document.tableArrays[name, default: []].append(TOMLTable(position: start))
                    target = .tableArray(name)
                } else {
                    if let first = headers[name] {
                        throw PolicyError(
                            at: start, in: file, "table `[\(name)]` is already defined on line \(first.line)")
                    }
                    document.tables[name] = TOMLTable(position: start)
                    target = .table(name)
                }
                headers[name] = headers[name] ?? start
            } else {
                let keyPosition = position
                let key = try parseKey()
                skipSpaces()
                if current == "." { throw error("dotted keys are not supported; write `\(key)` inside a `[table]`") }
                guard current == "=" else { throw error("expected `=` after the key `\(key)`") }
                advance()
                skipSpaces()
                let value = try parseValue()
                let entry = TOMLTable.Entry(key: key, keyPosition: keyPosition, value: value)
                switch target {
                case .root:
                    if document.tables[key] != nil || document.tableArrays[key] != nil {
                        throw PolicyError(at: keyPosition, in: file, "`\(key)` is already defined as a table")
                    }
                    try add(entry, to: &document.root)
                case .table(let name):
                    try add(entry, to: &document.tables[name]!)
                case .tableArray(let name):
                    try add(entry, to: &document.tableArrays[name]![document.tableArrays[name]!.count - 1])
                }
            }
            try expectEndOfLine()
        }
        return document
    }

    private func add(_ entry: TOMLTable.Entry, to table: inout TOMLTable) throws(PolicyError) {
        if let first = table.entry(entry.key) {
            throw PolicyError(
                at: entry.keyPosition, in: file,
                "duplicate key `\(entry.key)`; it is already set on line \(first.keyPosition.line)")
        }
        table.entries.append(entry)
    }

    private mutating func expectEndOfLine() throws(PolicyError) {
        skipSpaces()
        guard let scalar = current else { return }
        if scalar == "#" { return try skipComment() }
        guard isNewline(scalar) else { throw error("expected the end of the line, found `\(scalar)`") }
        try consumeNewline()
    }

    // MARK: Keys and values

    private mutating func parseKey() throws(PolicyError) -> String {
        if current == "\"" { return try parseBasicString() }
        var key = ""
        while let scalar = current, isBareKeyScalar(scalar) {
            key.unicodeScalars.append(scalar)
            advance()
        }
        if key.isEmpty {
            if let scalar = current, !isNewline(scalar) { throw error("expected a key, found `\(scalar)`") }
            throw error("expected a key")
        }
        return key
    }

    private mutating func parseValue() throws(PolicyError) -> TOMLValue {
        let start = position
        guard let scalar = current, !isNewline(scalar) else { throw error("expected a value after `=`") }
        switch scalar {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { throw error("multi-line strings (`\"\"\"`) are not supported") }
            return TOMLValue(kind: .string(try parseBasicString()), position: start)
        case "'":
            if peek(1) == "'" && peek(2) == "'" { throw error("multi-line strings (`'''`) are not supported") }
            return TOMLValue(kind: .string(try parseLiteralString()), position: start)
        case "[":
            return TOMLValue(kind: .array(try parseArray()), position: start)
        case "{":
            throw error("inline tables (`{ … }`) are not supported; use a `[table]` or `[[table]]`")
        case "t", "f":
            let word = takeWord()
            switch word {
            case "true": return TOMLValue(kind: .boolean(true), position: start)
            case "false": return TOMLValue(kind: .boolean(false), position: start)
            default:
                throw PolicyError(at: start, in: file, "unknown value `\(word)`; strings need quotes: \"\(word)\"")
            }
        case "+", "-", "0"..."9":
            return TOMLValue(kind: .integer(try parseInteger()), position: start)
        default:
            let word = takeWord()
            throw PolicyError(
                at: start, in: file,
                "unknown value `\(word.isEmpty ? String(scalar) : word)`; strings need quotes: \"\(word)\"")
        }
    }

    private mutating func parseInteger() throws(PolicyError) -> Int64 {
        let start = position
        let word = takeWord()
        var digits = Substring(word)
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        if word.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            throw PolicyError(at: start, in: file, "`\(word)`: only whole numbers are supported")
        }
        if word.contains(":") || word.filter({ $0 == "-" }).count > 1 {
            throw PolicyError(at: start, in: file, "`\(word)`: dates and times need quotes, e.g. \"21:30\"")
        }
        let valid =
            !digits.isEmpty && digits.first != "_" && digits.last != "_" && !digits.contains("__")
            && digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "_") }
        guard valid else { throw PolicyError(at: start, in: file, "`\(word)` is not a number") }
        let plain = digits.filter { $0 != "_" }
        if plain.count > 1 && plain.first == "0" {
            throw PolicyError(at: start, in: file, "`\(word)`: leading zeros are not allowed")
        }
        guard let magnitude = Int64(negative ? "-" + plain : plain) else {
            throw PolicyError(at: start, in: file, "`\(word)` is too large")
        }
        return magnitude
    }

    private mutating func parseArray() throws(PolicyError) -> [TOMLValue] {
        guard depth < Self.maximumNesting else {
            throw error("arrays nested more than \(Self.maximumNesting) deep; a policy needs at most two levels")
        }
        depth += 1
        defer { depth -= 1 }
        advance()  // [
        var elements: [TOMLValue] = []
        while true {
            try skipSpacesNewlinesAndComments()
            if current == "]" {
                advance()
                return elements
            }
            guard current != nil else { throw error("unterminated array; close it with `]`") }
            elements.append(try parseValue())
            try skipSpacesNewlinesAndComments()
            if current == "," {
                advance()
            } else if current != "]" {
                guard let scalar = current else { throw error("unterminated array; close it with `]`") }
                throw error("expected `,` or `]` in the array, found `\(scalar)`")
            }
        }
    }

    private mutating func parseBasicString() throws(PolicyError) -> String {
        advance()  // "
        var text = ""
        while true {
            guard let scalar = current, !isNewline(scalar) else {
                throw error("unterminated string; close it with `\"` on the same line")
            }
            advance()
            switch scalar {
            case "\"":
                return text
            case "\\":
                text.unicodeScalars.append(try parseEscape())
            case "\t":
                text.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    throw error("control character U+\(hex(scalar.value)) in a string; write it as an escape")
                }
                text.unicodeScalars.append(scalar)
            }
        }
    }

    private mutating func parseEscape() throws(PolicyError) -> Unicode.Scalar {
        let start = SourcePosition(line: line, column: index - lineStart)
        guard let scalar = current else { throw error("unterminated string") }
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
            var digits = ""
            for _ in 0..<count {
                guard let digit = current, digit.properties.isASCIIHexDigit else {
                    throw PolicyError(
                        at: start, in: file, "`\\\(scalar)` needs \(count) hexadecimal digits, e.g. `\\u00E9`")
                }
                digits.unicodeScalars.append(digit)
                advance()
            }
            guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                throw PolicyError(at: start, in: file, "`\\\(scalar)\(digits)` is not a Unicode scalar value")
            }
            return result
        default:
            throw PolicyError(
                at: start, in: file, "unknown escape `\\\(scalar)`; write `\\\\` for a backslash")
        }
    }

    private mutating func parseLiteralString() throws(PolicyError) -> String {
        advance()  // '
        var text = ""
        while true {
            guard let scalar = current, !isNewline(scalar) else {
                throw error("unterminated string; close it with `'` on the same line")
            }
            advance()
            if scalar == "'" { return text }
            text.unicodeScalars.append(scalar)
        }
    }

    // MARK: Scanning

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    private mutating func advance(_ count: Int = 1) { index = min(index + count, scalars.count) }

    private func isNewline(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    private func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                || scalar == "-")
    }

    private mutating func consumeNewline() throws(PolicyError) {
        if current == "\r" {
            advance()
            guard current == "\n" else { throw error("a carriage return must be followed by a line feed") }
        }
        advance()
        line += 1
        lineStart = index
    }

    private mutating func skipSpaces() {
        while current == " " || current == "\t" { advance() }
    }

    private mutating func skipComment() throws(PolicyError) {
        while let scalar = current, !isNewline(scalar) {
            if scalar.value < 0x20 && scalar != "\t" {
                throw error("control character U+\(hex(scalar.value)) in a comment")
            }
            advance()
        }
    }

    private mutating func skipSpacesNewlinesAndComments() throws(PolicyError) {
        while let scalar = current {
            if scalar == " " || scalar == "\t" {
                advance()
            } else if isNewline(scalar) {
                try consumeNewline()
            } else if scalar == "#" {
                try skipComment()
            } else {
                return
            }
        }
    }

    /// Takes everything up to a space, comma, bracket, comment or line end.
    private mutating func takeWord() -> String {
        var word = ""
        while let scalar = current, ![" ", "\t", ",", "]", "#", "\n", "\r"].contains(scalar) {
            word.unicodeScalars.append(scalar)
            advance()
        }
        return word
    }

    private func error(_ message: String) -> PolicyError {
        PolicyError(at: position, in: file, message)
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension PolicyError {
    init(at position: SourcePosition, in file: String, _ message: String) {
        self.init(file: file, line: position.line, column: position.column, message: message)
    }
}
