/// A position in a source text: 1-based line and column.
struct SourcePosition: Hashable, Sendable {
    var line: Int
    var column: Int
}

/// A value of the TOML subset that policy files use, with where it was written.
struct TOMLValue: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case array([TOMLValue])
    }

    var kind: Kind
    var position: SourcePosition

    /// The type's name for messages: `a string`, `an integer`, ….
    var typeDescription: String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "a boolean"
        case .array: "an array"
        }
    }
}

/// The keys and values of one table, in the order written.
struct TOMLTable: Hashable, Sendable {
    struct Entry: Hashable, Sendable {
        var key: String
        var keyPosition: SourcePosition
        var value: TOMLValue
    }

    /// Where the table's header is (line 1, column 1 for the root table).
    var position: SourcePosition
    var entries: [Entry] = []

    func entry(_ key: String) -> Entry? { entries.first { $0.key == key } }
}

/// A parsed file: the root table, `[name]` tables and `[[name]]` arrays of tables (one level of names only).
struct TOMLDocument: Hashable, Sendable {
    var root: TOMLTable
    var tables: [String: TOMLTable] = [:]
    var tableArrays: [String: [TOMLTable]] = [:]
}
