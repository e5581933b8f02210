/// A kernel process id (`pid_t`). Alone it names a process only until the process exits; pair it with
/// the start time (`ProcessIdentity`) wherever a reused number would be a mistake.
public struct ProcessID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A process as it was born: its pid and its start time in clock ticks since boot (`/proc/PID/stat` field 22).
/// Two processes never share both, so identities cached under this key survive pid reuse.
public struct ProcessIdentity: Hashable, Sendable, Codable, CustomStringConvertible {
    public var pid: ProcessID
    public var startTime: UInt64
    public init(pid: ProcessID, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }
    public var description: String { "\(pid)@\(startTime)" }
}

/// A Unix user id (`uid_t`).
public struct UserID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Optional where Wrapped == Set<UserID> {
    /// Whether these users, nil meaning every user, include `user`: whom a registration, a policy or a daemon
    /// limits.
    public func includes(_ user: UserID) -> Bool { self?.contains(user) ?? true }
}

/// A logind session id. Ids are strings (`"3"`, `"c1"`), never numbers.
public struct SessionID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The plain-text identity of an app: a desktop-entry id without `.desktop` (`org.gnome.Calculator`), a flatpak
/// or snap name, or, for a program without a desktop entry, its executable's file name (`supertuxkart`).
/// It is what policies name; everything exported or logged uses its `ApplicationToken` instead.
public struct AppID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
