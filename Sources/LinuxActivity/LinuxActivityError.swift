import SystemPackage

/// An environmental failure of the collector: what failed, where, and the underlying `Errno` when there is one.
public struct LinuxActivityError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure.
    public enum Code: String, Sendable {
        case tokenKey
        case logind
        /// A D-Bus connection could not be made or was lost, or a request on it failed or was refused.
        case bus
        /// A D-Bus message could not be built (a malformed name, path or argument) or read as expected.
        case busMessage
        case display
    }

    /// The error a D-Bus peer (or sd-bus on its behalf) answered a method call with.
    public struct RemoteError: Hashable, Sendable {
        /// The error's name, such as `org.freedesktop.DBus.Error.ServiceUnknown`.
        public var name: String
        /// The peer's explanation; may be empty.
        public var message: String

        /// Creates a remote error from its name and explanation.
        public init(name: String, message: String) {
            self.name = name
            self.message = message
        }
    }

    public var code: Code
    /// A sentence for people: what failed, where, and how to fix it when that is known.
    public var message: String
    public var errno: Errno?
    /// For a failed D-Bus method call, the error it was answered with.
    public var remoteError: RemoteError?

    public init(_ code: Code, _ message: String, errno: Errno? = nil, remoteError: RemoteError? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.remoteError = remoteError
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
