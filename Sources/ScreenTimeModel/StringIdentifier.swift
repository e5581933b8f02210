/// A name or identifier that is a string with a meaning of its own: it prints, orders and encodes as the bare
/// string (encoding comes from the standard library's `RawRepresentable` defaults), and a literal makes one.
public protocol StringIdentifier: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
where RawValue == String {
    init(rawValue: String)
}

extension StringIdentifier {
    /// The identifier spelled `rawValue`, as Apple's `DeviceActivityName("daily")`.
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
