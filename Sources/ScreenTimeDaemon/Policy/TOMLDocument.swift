/// A position in a source text: 1-based line and column (in Unicode scalars).
struct SourcePosition: Hashable, Sendable, Comparable {
    var line: Int
    var column: Int

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.line, lhs.column) < (rhs.line, rhs.column) }
}

/// A TOML date, time or date-time: an offset date-time has all three parts, a local date-time no offset, a local
/// date only `date`, a local time only `time`.
struct TOMLDateTime: Hashable, Sendable {
    struct Date: Hashable, Sendable {
        var year: Int
        var month: Int
        var day: Int
    }
    struct Time: Hashable, Sendable {
        var hour: Int
        var minute: Int
        var second: Int
        /// The fraction of the second, in nanoseconds (digits past the ninth are dropped).
        var nanosecond: Int
    }

    var date: Date?
    var time: Time?
    /// Minutes east of UTC (`Z` is 0); nil for a local value.
    var offsetMinutes: Int?
}

/// A value of a TOML 1.0 document, with where it was written.
struct TOMLValue: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case dateTime(TOMLDateTime)
        case array([TOMLValue])
        /// A table, by its index in `TOMLDocument.tables`.
        case table(Int)
    }

    var kind: Kind
    var position: SourcePosition

    /// The type's name for messages: `a string`, `an integer`, ….
    var typeDescription: String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .dateTime(let value):
            switch (value.date, value.time, value.offsetMinutes) {
            case (nil, _, _): "a time"
            case (_, nil, _): "a date"
            default: "a date-time"
            }
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// The keys and values of one table, in the order written.
struct TOMLTable: Equatable, Sendable {
    /// How a table came to be, which decides what may still be added to it (TOML 1.0's rules).
    enum Origin: Equatable, Sendable {
        /// The root table.
        case root
        /// A `[name]` header.
        case header
        /// Created on the way to a deeper header (`a` by `[a.b]`); a later `[a]` may still define it.
        case implicit
        /// Created by a dotted key (`a.b = 1` creates `a`).
        case dotted
        /// An inline table `{ … }` and the tables inside it: closed once written.
        case inline
        /// An element of a `[[name]]` array of tables.
        case arrayElement
    }

    struct Entry: Equatable, Sendable {
        var key: String
        var keyPosition: SourcePosition
        var value: TOMLValue
        /// Whether the value is an array of tables made by `[[key]]` headers (which later headers may extend).
        var isTableArray = false
    }

    /// Where the table's header, first dotted key or `{` is (line 1, column 1 for the root table).
    var position: SourcePosition
    var origin: Origin
    var entries: [Entry] = []
    /// By the key's UTF-8 bytes: TOML compares keys by code points, where Swift's `String` equality would take
    /// canonically equivalent spellings (a precomposed and a decomposed "é") for one key.
    private var indices: [[UInt8]: Int] = [:]

    init(position: SourcePosition, origin: Origin) {
        self.position = position
        self.origin = origin
    }

    /// The entry for `key`, if the table has one.
    func entry(_ key: String) -> Entry? { index(of: key).map { entries[$0] } }

    /// The index of `key`'s entry in `entries`.
    func index(of key: String) -> Int? { indices[Array(key.utf8)] }

    /// Adds an entry; the caller has checked that the key is new.
    mutating func append(_ entry: Entry) {
        indices[Array(entry.key.utf8)] = entries.count
        entries.append(entry)
    }
}

/// A parsed file: every table in one flat list, the root first. Tables refer to each other by index, so nothing
/// about a document is recursive but its (depth-limited) arrays.
struct TOMLDocument: Equatable, Sendable {
    var tables: [TOMLTable] = [TOMLTable(position: SourcePosition(line: 1, column: 1), origin: .root)]

    /// The root table.
    var root: TOMLTable { tables[0] }

    /// The table at `index`.
    subscript(_ index: Int) -> TOMLTable { tables[index] }
}
