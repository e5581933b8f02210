/// A TOML 1.0 reader for policy files: comments, `key = value` with bare, quoted and dotted keys, `[table]` and
/// `[[array-of-tables]]` headers (dotted names kept whole), basic, literal and multi-line strings, integers (decimal,
/// hex, octal, binary), floats, booleans, dates and times, arrays and inline tables. Arrays and inline tables nested
/// deeper than `maximumNesting` are refused rather than followed, so no input can exhaust the stack. Each mistake is
/// reported at its position.
struct TOMLParser {
    let scalars: [Unicode.Scalar]
    let file: String
    var index = 0
    /// How many arrays the parser is inside; past `maximumNesting` the value is refused rather than parsed.
    var depth = 0
    var line = 1
    var lineStart = 0

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

    enum Target {
        case root
        case table(String)
        case tableArray(String)
    }

    mutating func parseDocument() throws(PolicyError) -> TOMLDocument {
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
                let name = try parseDottedKey().joined(separator: ".")
                skipSpaces()
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
                let keys = try parseDottedKey()
                guard current == "=" else { throw error("expected `=` after the key `\(keys.joined(separator: "."))`") }
                advance()
                skipSpaces()
                let value = try parseValue()
                let entry = Self.entry(keys, at: keyPosition, value: value)
                switch target {
                case .root:
                    if document.tables[entry.key] != nil || document.tableArrays[entry.key] != nil {
                        throw PolicyError(at: keyPosition, in: file, "`\(entry.key)` is already defined as a table")
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

    func add(_ entry: TOMLTable.Entry, to table: inout TOMLTable) throws(PolicyError) {
        try add(entry, to: &table.entries)
    }

    /// Adds an entry; the tables of dotted keys sharing a first part (`a.b = 1`, `a.c = 2`) are merged.
    func add(_ entry: TOMLTable.Entry, to entries: inout [TOMLTable.Entry]) throws(PolicyError) {
        guard let index = entries.firstIndex(where: { $0.key == entry.key }) else {
            entries.append(entry)
            return
        }
        guard case .table(var existing) = entries[index].value.kind, case .table(let more) = entry.value.kind,
            entries[index].isDotted, entry.isDotted
        else {
            throw PolicyError(
                at: entry.keyPosition, in: file,
                "duplicate key `\(entry.key)`; it is already set on line \(entries[index].keyPosition.line)")
        }
        for part in more { try add(part, to: &existing) }
        entries[index].value.kind = .table(existing)
    }

    /// The entry `a.b.c = value` makes: `a` holding a table holding `b`, … (marked as made by a dotted key).
    static func entry(_ keys: [String], at position: SourcePosition, value: TOMLValue) -> TOMLTable.Entry {
        var entry = TOMLTable.Entry(key: keys[keys.count - 1], keyPosition: position, value: value)
        for key in keys.dropLast().reversed() {
            entry = TOMLTable.Entry(
                key: key, keyPosition: position, value: TOMLValue(kind: .table([entry]), position: position),
                isDotted: true)
        }
        return entry
    }

    mutating func expectEndOfLine() throws(PolicyError) {
        skipSpaces()
        guard let scalar = current else { return }
        if scalar == "#" { return try skipComment() }
        guard isNewline(scalar) else { throw error("expected the end of the line, found `\(scalar)`") }
        try consumeNewline()
    }

    // MARK: Keys and values

    /// `a`, `"a b"`, `a.b.c` (spaces around the dots allowed).
    mutating func parseDottedKey() throws(PolicyError) -> [String] {
        var keys = [try parseKey()]
        skipSpaces()
        while current == "." {
            advance()
            skipSpaces()
            keys.append(try parseKey())
            skipSpaces()
        }
        return keys
    }

    mutating func parseKey() throws(PolicyError) -> String {
        if current == "\"" { return try parseBasicString() }
        if current == "'" { return try parseLiteralString() }
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

    mutating func parseValue() throws(PolicyError) -> TOMLValue {
        let start = position
        guard let scalar = current, !isNewline(scalar) else { throw error("expected a value after `=`") }
        switch scalar {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" {
                return TOMLValue(kind: .string(try parseMultiLineString(literal: false)), position: start)
            }
            return TOMLValue(kind: .string(try parseBasicString()), position: start)
        case "'":
            if peek(1) == "'" && peek(2) == "'" {
                return TOMLValue(kind: .string(try parseMultiLineString(literal: true)), position: start)
            }
            return TOMLValue(kind: .string(try parseLiteralString()), position: start)
        case "[":
            return TOMLValue(kind: .array(try parseArray()), position: start)
        case "{":
            return TOMLValue(kind: .table(try parseInlineTable()), position: start)
        case "t", "f", "i", "n":
            let word = takeWord()
            switch word {
            case "true": return TOMLValue(kind: .boolean(true), position: start)
            case "false": return TOMLValue(kind: .boolean(false), position: start)
            case "inf": return TOMLValue(kind: .float(.infinity), position: start)
            case "nan": return TOMLValue(kind: .float(.nan), position: start)
            default:
                throw PolicyError(at: start, in: file, "unknown value `\(word)`; strings need quotes: \"\(word)\"")
            }
        case "+", "-", "0"..."9":
            return try parseNumberOrDate()
        default:
            let word = takeWord()
            throw PolicyError(
                at: start, in: file,
                "unknown value `\(word.isEmpty ? String(scalar) : word)`; strings need quotes: \"\(word)\"")
        }
    }

    mutating func parseArray() throws(PolicyError) -> [TOMLValue] {
        guard depth < Self.maximumNesting else {
            throw error("tables and arrays nested more than \(Self.maximumNesting) deep; a policy needs at most two levels")
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

    // MARK: Scanning

    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    mutating func advance(_ count: Int = 1) { index = min(index + count, scalars.count) }

    func isNewline(_ scalar: Unicode.Scalar) -> Bool { scalar == "\n" || scalar == "\r" }

    func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                || scalar == "-")
    }

    mutating func consumeNewline() throws(PolicyError) {
        if current == "\r" {
            advance()
            guard current == "\n" else { throw error("a carriage return must be followed by a line feed") }
        }
        advance()
        line += 1
        lineStart = index
    }

    mutating func skipSpaces() {
        while current == " " || current == "\t" { advance() }
    }

    mutating func skipComment() throws(PolicyError) {
        while let scalar = current, !isNewline(scalar) {
            if scalar.value < 0x20 && scalar != "\t" {
                throw error("control character U+\(hex(scalar.value)) in a comment")
            }
            advance()
        }
    }

    mutating func skipSpacesNewlinesAndComments() throws(PolicyError) {
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
    mutating func takeWord() -> String {
        var word = ""
        while let scalar = current, ![" ", "\t", ",", "]", "}", "#", "\n", "\r"].contains(scalar) {
            word.unicodeScalars.append(scalar)
            advance()
        }
        return word
    }

    func error(_ message: String) -> PolicyError {
        PolicyError(at: position, in: file, message)
    }

    func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension PolicyError {
    init(at position: SourcePosition, in file: String, _ message: String) {
        self.init(file: file, line: position.line, column: position.column, message: message)
    }
}
