/// A position in a source text: 1-based line and column.
struct SourcePosition: Hashable, Sendable {
    var line: Int
    var column: Int
}

/// A TOML 1.0 value, with where it was written.
struct TOMLValue: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// An offset or local date-time, a local date or a local time, as written.
        case dateTime(String)
        case array([TOMLValue])
        /// An inline table (`{ a = 1, b = 2 }`), or the table a dotted key (`a.b = 1`) makes.
        case table([TOMLTable.Entry])
    }

    var kind: Kind
    var position: SourcePosition

    /// The type's name for messages: `a string`, `an integer`, ….
    var typeDescription: String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .boolean: "a boolean"
        case .dateTime: "a date or time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// The keys and values of one table, in the order written.
struct TOMLTable: Hashable, Sendable {
    struct Entry: Hashable, Sendable {
        var key: String
        var keyPosition: SourcePosition
        var value: TOMLValue
        /// Whether a dotted key made this entry's table (`a.b = 1` makes `a`), so that another may add to it.
        var isDotted = false
    }

    /// Where the table's header is (line 1, column 1 for the root table).
    var position: SourcePosition
    var entries: [Entry] = []

    func entry(_ key: String) -> Entry? { entries.first { $0.key == key } }
}

/// A parsed file: the root table, `[name]` tables and `[[name]]` arrays of tables, by their dotted names.
struct TOMLDocument: Hashable, Sendable {
    var root: TOMLTable
    var tables: [String: TOMLTable] = [:]
    var tableArrays: [String: [TOMLTable]] = [:]
}
