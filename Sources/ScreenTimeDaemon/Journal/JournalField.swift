/// One field of a journal entry: a name following journald's rules and a value of arbitrary bytes.
public struct JournalField: Hashable, Sendable, CustomStringConvertible {
    /// The field's name: `A`–`Z`, `0`–`9` and `_`, not starting with `_` or a digit, at most 64 bytes.
    public var name: String
    /// The value; may contain newlines and any other byte.
    public var value: [UInt8]

    /// Creates a field from a name already valid for the journal and a textual value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = Array(value.utf8)
    }

    /// The longest field name journald accepts.
    public static let maximumNameLength = 64

    /// `NAME=value`, exactly the bytes handed to `sd_journal_sendv(3)`.
    public var encoded: [UInt8] { Array(name.utf8) + [UInt8(ascii: "=")] + value }

    /// `NAME=value` as text, for tests and messages.
    public var description: String { String(decoding: encoded, as: UTF8.self) }

    /// Turns any string into a valid field name: ASCII letters are uppercased, every other character that is not
    /// `A`–`Z`, `0`–`9` or `_` becomes `_`, leading underscores (reserved for fields journald sets itself) are
    /// dropped, a name starting with a digit or left empty gets the prefix `META_`, and the result is cut to 64 bytes.
    ///
    /// `"request-id"` → `REQUEST_ID`, `"_pid"` → `PID`, `"2fa"` → `META_2FA`, `"été"` → `_T_` → `T_`.
    public static func sanitizedName(_ key: String) -> String {
        var bytes: [UInt8] = key.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x61...0x7A: UInt8(scalar.value - 0x20)
            case 0x41...0x5A, 0x30...0x39, 0x5F: UInt8(scalar.value)
            default: UInt8(ascii: "_")
            }
        }
        while bytes.first == UInt8(ascii: "_") { bytes.removeFirst() }
        if bytes.isEmpty || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[0]) {
            bytes = Array("META_".utf8) + bytes
        }
        return String(decoding: bytes.prefix(maximumNameLength), as: UTF8.self)
    }
}
