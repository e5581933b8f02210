import SystemPackage

/// An environmental failure of the collector: what failed, where, and the underlying `Errno` when there is one.
public struct LinuxActivityError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public enum Code: String, Sendable {
        case tokenKey
        case logind
        case bus
        case display
    }

    public var code: Code
    /// A sentence for people: what failed, where, and how to fix it when that is known.
    public var message: String
    public var errno: Errno?

    public init(_ code: Code, _ message: String, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String {
        if let errno { return "\(message): \(errno)" }
        return message
    }
}

extension Errno {
    /// The `Errno` of a negative libsystemd return value (`-errno`).
    init(systemdResult: Int32) { self.init(rawValue: -systemdResult) }
}
