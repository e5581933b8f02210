/// A D-Bus value with its type, for building and reading message arguments, containers (`as`, `a{sv}`, structures)
/// included.
public indirect enum BusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    /// A string (`s`); a signature (`g`) reads as one too.
    case string(String)
    case objectPath(String)
    /// An array whose elements have the signature `elementSignature` (needed for an empty array).
    case array(elementSignature: String, [BusValue])
    /// One `{key value}` entry of a dictionary (an array of entries).
    case dictionaryEntry(BusValue, BusValue)
    case variant(BusValue)
    case structure([BusValue])

    /// The value's D-Bus type signature (`s`, `as`, `a{sv}`, …).
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .array(let element, _): "a" + element
        case .dictionaryEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// The string inside `.string` or `.objectPath`.
    public var stringValue: String? {
        switch self {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    /// The number inside `.uint32`.
    public var uint32Value: UInt32? { if case .uint32(let value) = self { value } else { nil } }

    /// The flag inside `.boolean`.
    public var boolValue: Bool? { if case .boolean(let value) = self { value } else { nil } }
}
