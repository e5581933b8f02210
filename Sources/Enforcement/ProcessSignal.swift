import Glibc

/// A signal named by what the enforcer means by it.
public struct ProcessSignal: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The signal number.
    public var rawValue: Int32
    /// Creates a signal from its number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Stop the process where it is (`SIGSTOP`); it cannot be caught, but its owner can undo it with `SIGCONT`.
    public static let suspend = ProcessSignal(rawValue: SIGSTOP)
    /// Let a stopped process run again (`SIGCONT`).
    public static let resume = ProcessSignal(rawValue: SIGCONT)
    /// Ask the process to quit (`SIGTERM`); it may clean up, or ignore it.
    public static let terminate = ProcessSignal(rawValue: SIGTERM)
    /// End the process at once (`SIGKILL`).
    public static let kill = ProcessSignal(rawValue: SIGKILL)

    /// The intent's name (`suspend`), or `signal N` for others.
    public var description: String {
        switch self {
        case .suspend: "suspend"
        case .resume: "resume"
        case .terminate: "terminate"
        case .kill: "kill"
        default: "signal \(rawValue)"
        }
    }
}
