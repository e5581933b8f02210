/// A TOML 1.0 reader that keeps the position of every key and value, reports every syntax error rather than the
/// first, and never recurses deeper than `maximumDepth`: arrays, inline tables and table names nested deeper are
/// refused with an error instead of exhausting the stack.
///
/// After a syntax error it skips to the next line that starts a statement (`key =`, `[table]`, `[[table]]`, or a key
/// and a value missing the `=` between them), so each line reports at most one error and the lines of a broken
/// multi-line value report none.
struct TOMLParser {
    /// How deep tables and arrays may nest: each array, inline table and table a key part names counts
    /// (`[a.b]` is 2 deep; `x = [[1]]` at the top level is 2, in `[a.b]` 4).
    static let maximumDepth = 64

    private var scanner: TOMLScanner
    private var document = TOMLDocument()
    private var errors: [TOMLSyntaxError] = []
    /// The table that `key = value` lines go to; after a broken header, a table nothing refers to.
    private var currentTable = 0
    private var currentDepth = 0

    private init(_ text: String) {
        self.scanner = TOMLScanner(text)
    }

    /// Parses the whole text: the document (whatever could be read of it) and every syntax error, in text order.
    static func parse(_ text: String) -> (document: TOMLDocument, errors: [TOMLSyntaxError]) {
        var parser = TOMLParser(text)
        parser.parseDocument()
        return (parser.document, parser.errors)
    }

    // MARK: Statements

    private mutating func parseDocument() {
        while true {
            scanner.skipSpaces()
            guard let scalar = scanner.current else { return }
            do throws(TOMLSyntaxError) {
                if scalar == "[" {
                    try parseHeader()
                } else if scalar != "#" && !TOMLScanner.isNewline(scalar) {
                    try parseKeyValue(into: currentTable, depth: currentDepth)
                }
                try scanner.expectEndOfLine()
            } catch {
                errors.append(error)
                recover()
            }
        }
    }

    /// Skips the rest of the line, then every line that doesn't look like the start of a statement.
    private mutating func recover() {
        scanner.skipRestOfLine()
        while !scanner.isAtEnd && !startsStatement(scanner) { scanner.skipRestOfLine() }
    }

    /// Whether the line at `probe` reads as `key =`, `[key]` or `[[key]]` (blank and comment lines do not).
    private func startsStatement(_ probe: TOMLScanner) -> Bool {
        var probe = probe
        probe.skipSpaces()
        guard let scalar = probe.current else { return true }
        if scalar == "[" {
            probe.advance(probe.peek(1) == "[" ? 2 : 1)
            probe.skipSpaces()
            // `[name]`, or a header missing its `]`; not an array's line such as `[1, 2],`.
            guard (try? probe.parseKey()) != nil else { return false }
            while probe.current == "]" { probe.advance() }
            probe.skipSpaces()
            return probe.current == nil || probe.current == "#" || probe.atNewline
        }
        guard scalar != "#", !TOMLScanner.isNewline(scalar), (try? probe.parseKey()) != nil else { return false }
        if probe.current == "=" { return true }
        // A bare key followed by a value without its `=` (`name "games"`, `apps ["x"]`) is a statement with a mistake
        // of its own, reported too; not the values on a broken array's lines (`"x",`, `1,`, `true`).
        guard scalar != "\"", scalar != "'", let next = probe.current else { return false }
        return next != "," && next != "]" && next != "}" && next != "#" && !probe.atNewline
    }

    private mutating func parseHeader() throws(TOMLSyntaxError) {
        let start = scanner.position
        do {
            try readHeader(at: start)
        } catch {
            // The lines after a broken header belong to a table of their own, so they are not blamed on another.
            currentTable = newTable(at: start, origin: .header)
            throw error
        }
    }

    private mutating func readHeader(at start: SourcePosition) throws(TOMLSyntaxError) {
        let isArray = scanner.peek(1) == "["
        scanner.advance(isArray ? 2 : 1)
        scanner.skipSpaces()
        let key = try scanner.parseKey()
        for _ in 0..<(isArray ? 2 : 1) {
            guard scanner.current == "]" else {
                throw scanner.error("expected `\(isArray ? "]]" : "]")` to close the table header")
            }
            scanner.advance()
        }
        guard key.count <= Self.maximumDepth else {
            throw scanner.error(Self.nestingMessage, at: start)
        }
        currentTable = try openTable(key, isArray: isArray, at: start)
        currentDepth = key.count
    }

    private mutating func parseKeyValue(into table: Int, depth: Int) throws(TOMLSyntaxError) {
        let key = try scanner.parseKey()
        // Each part of a dotted key but the last is a table.
        guard depth + key.count - 1 <= Self.maximumDepth else {
            throw scanner.error(Self.nestingMessage, at: key[0].position)
        }
        guard scanner.current == "=" else {
            throw scanner.error("expected `=` after the key `\(Self.dotted(key))`")
        }
        scanner.advance()
        scanner.skipSpaces()
        let value = try parseValue(depth: depth + key.count)
        try insert(value, at: key, into: table)
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let start = scanner.position
        if scanner.current == "[" || scanner.current == "{", depth > Self.maximumDepth {
            throw scanner.error(Self.nestingMessage)
        }
        switch scanner.current {
        case "\"":
            if scanner.looksAt("\"\"\"") {
                return TOMLValue(kind: .string(try scanner.parseMultiLineString(literal: false)), position: start)
            }
            return TOMLValue(kind: .string(try scanner.parseBasicString()), position: start)
        case "'":
            if scanner.looksAt("'''") {
                return TOMLValue(kind: .string(try scanner.parseMultiLineString(literal: true)), position: start)
            }
            return TOMLValue(kind: .string(try scanner.parseLiteralString()), position: start)
        case "[":
            return try parseArray(depth: depth)
        case "{":
            return try parseInlineTable(depth: depth)
        default:
            return TOMLValue(kind: try scanner.parseBareValue(), position: start)
        }
    }

    private mutating func parseArray(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let start = scanner.position
        scanner.advance()  // [
        var elements: [TOMLValue] = []
        while true {
            try scanner.skipBlank()
            if scanner.current == "]" {
                scanner.advance()
                return TOMLValue(kind: .array(elements), position: start)
            }
            guard !scanner.isAtEnd else { throw scanner.error("unterminated array; close it with `]`") }
            elements.append(try parseValue(depth: depth + 1))
            try scanner.skipBlank()
            if scanner.current == "," {
                scanner.advance()
            } else if scanner.current != "]" {
                guard let scalar = scanner.current else { throw scanner.error("unterminated array; close it with `]`") }
                throw scanner.error("expected `,` or `]` in the array, found `\(scalar)`")
            }
        }
    }

    private mutating func parseInlineTable(depth: Int) throws(TOMLSyntaxError) -> TOMLValue {
        let start = scanner.position
        scanner.advance()  // {
        let table = newTable(at: start, origin: .inline)
        let value = TOMLValue(kind: .table(table), position: start)
        scanner.skipSpaces()
        if scanner.current == "}" {
            scanner.advance()
            return value
        }
        while true {
            scanner.skipSpaces()
            if scanner.atNewline || scanner.isAtEnd { throw scanner.error(Self.inlineTableLineMessage) }
            try parseKeyValue(into: table, depth: depth)
            scanner.skipSpaces()
            switch scanner.current {
            case ",":
                scanner.advance()
                scanner.skipSpaces()
                if scanner.current == "}" { throw scanner.error("a comma may not end an inline table; remove it") }
            case "}":
                scanner.advance()
                return value
            case let scalar?:
                if TOMLScanner.isNewline(scalar) { throw scanner.error(Self.inlineTableLineMessage) }
                throw scanner.error("expected `,` or `}` in the inline table, found `\(scalar)`")
            case nil:
                throw scanner.error(Self.inlineTableLineMessage)
            }
        }
    }

    // MARK: Tables

    private mutating func newTable(at position: SourcePosition, origin: TOMLTable.Origin) -> Int {
        document.tables.append(TOMLTable(position: position, origin: origin))
        return document.tables.count - 1
    }

    /// Sets `key` (dotted: each part but the last a table made by dotted keys) in `table`.
    private mutating func insert(
        _ value: TOMLValue, at key: [(name: String, position: SourcePosition)], into start: Int
    ) throws(TOMLSyntaxError) {
        var table = start
        for (offset, part) in key.dropLast().enumerated() {
            if let entry = document.tables[table].entry(part.name) {
                guard case .table(let child) = entry.value.kind, document.tables[child].origin == .dotted else {
                    let name = Self.dotted(key.prefix(offset + 1))
                    throw scanner.error(
                        "`\(name)` is already defined on line \(entry.keyPosition.line) as \(describe(entry)); "
                            + "a dotted key cannot add to it", at: part.position)
                }
                table = child
            } else {
                let child = newTable(at: part.position, origin: .dotted)
                document.tables[table].append(
                    TOMLTable.Entry(
                        key: part.name, keyPosition: part.position,
                        value: TOMLValue(kind: .table(child), position: part.position)))
                table = child
            }
        }
        let last = key[key.count - 1]
        if let entry = document.tables[table].entry(last.name) {
            throw scanner.error(
                "duplicate key `\(Self.dotted(key))`; it is already set on line \(entry.keyPosition.line)",
                at: key[0].position)
        }
        document.tables[table].append(TOMLTable.Entry(key: last.name, keyPosition: key[0].position, value: value))
    }

    /// The table a `[key]` or `[[key]]` header opens, creating the tables on the way.
    private mutating func openTable(
        _ key: [(name: String, position: SourcePosition)], isArray: Bool, at position: SourcePosition
    ) throws(TOMLSyntaxError) -> Int {
        let header = isArray ? "[[\(Self.dotted(key))]]" : "[\(Self.dotted(key))]"
        var table = 0
        for (offset, part) in key.dropLast().enumerated() {
            guard let entry = document.tables[table].entry(part.name) else {
                let child = newTable(at: position, origin: .implicit)
                document.tables[table].append(
                    TOMLTable.Entry(
                        key: part.name, keyPosition: position,
                        value: TOMLValue(kind: .table(child), position: position)))
                table = child
                continue
            }
            switch entry.value.kind {
            case .table(let child) where document.tables[child].origin != .inline:
                table = child
            case .array(let elements) where entry.isTableArray:
                // The elements of an array of tables are tables (`[[key]]` makes nothing else).
                if case .table(let child)? = elements.last?.kind { table = child }
            default:
                throw scanner.error(
                    "`\(Self.dotted(key.prefix(offset + 1)))` is already defined on line \(entry.keyPosition.line) "
                        + "as \(describe(entry)); it cannot hold the table `\(header)`", at: position)
            }
        }
        let name = key[key.count - 1].name
        let child = newTable(at: position, origin: isArray ? .arrayElement : .header)
        let element = TOMLValue(kind: .table(child), position: position)
        guard let index = document.tables[table].index(of: name) else {
            document.tables[table].append(
                TOMLTable.Entry(
                    key: name, keyPosition: position,
                    value: isArray ? TOMLValue(kind: .array([element]), position: position) : element,
                    isTableArray: isArray))
            return child
        }
        if isArray && document.tables[table].entries[index].isTableArray {
            // Appended in place: a copy of the entry held here would make every `[[key]]` copy the whole array.
            appendElement(element, toEntry: index, of: table)
            return child
        }
        let entry = document.tables[table].entries[index]
        switch entry.value.kind {
        case .table(let existing) where !isArray && document.tables[existing].origin == .implicit:
            document.tables[existing].origin = .header
            document.tables[existing].position = position
            return existing
        case .table(let existing) where !isArray && document.tables[existing].origin == .header:
            throw scanner.error("table `\(header)` is already defined on line \(entry.keyPosition.line)", at: position)
        default:
            throw scanner.error(
                "`\(Self.dotted(key))` is already defined on line \(entry.keyPosition.line) as \(describe(entry)); "
                    + "`\(header)` cannot \(isArray ? "add to" : "define") it", at: position)
        }
    }

    private mutating func appendElement(_ element: TOMLValue, toEntry index: Int, of table: Int) {
        guard case .array(var elements) = document.tables[table].entries[index].value.kind else { return }
        // Emptied first, so that `elements` is the only reference and the append does not copy.
        document.tables[table].entries[index].value.kind = .array([])
        elements.append(element)
        document.tables[table].entries[index].value.kind = .array(elements)
    }

    private func describe(_ entry: TOMLTable.Entry) -> String {
        if entry.isTableArray { return "an array of tables" }
        if case .table(let table) = entry.value.kind {
            switch document.tables[table].origin {
            case .inline: return "an inline table"
            case .dotted: return "a table by dotted keys"
            default: return "a table"
            }
        }
        return entry.value.typeDescription
    }

    // MARK: Messages

    private static let nestingMessage =
        "nested more than \(maximumDepth) levels deep (arrays, inline tables and key parts); flatten the value"

    private static let inlineTableLineMessage =
        "unterminated inline table; close it with `}` on the same line (or use a `[table]` for many keys)"

    private static func dotted(_ key: some Collection<(name: String, position: SourcePosition)>) -> String {
        key.map { part in
            part.name.unicodeScalars.allSatisfy(TOMLScanner.isBareKeyScalar) && !part.name.isEmpty
                ? part.name : "\"\(part.name)\""
        }.joined(separator: ".")
    }
}
