import SystemPackage

/// The one error type of the Enforcement module: what failed, in words, and the kernel's `Errno` when there is one.
///
/// Expected races are not errors: a process that exited or a cgroup that was removed comes back as an outcome
/// (`SignalOutcome.gone`, `FreezeOutcome.gone`). Everything else (no permission, a busy cgroup, a freeze that did
/// not settle in time, an unreadable state file) is an `EnforcementError` that the daemon logs and retries.
public struct EnforcementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of operation failed.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// A short, stable name for logs.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// `pidfd_open(2)` failed for a reason other than the process being gone.
        public static let pidfdOpenFailed = Code(rawValue: "pidfd-open-failed")
        /// `pidfd_send_signal(2)` failed for a reason other than the process being gone (usually `EPERM`).
        public static let signalFailed = Code(rawValue: "signal-failed")
        /// Writing `1` to `cgroup.freeze` failed.
        public static let freezeFailed = Code(rawValue: "freeze-failed")
        /// Writing `0` to `cgroup.freeze` failed.
        public static let thawFailed = Code(rawValue: "thaw-failed")
        /// `cgroup.events` did not report the requested state before the timeout; the request stays written.
        public static let freezeTimedOut = Code(rawValue: "freeze-timed-out")
        /// A `/proc` or cgroup file could not be read or parsed.
        public static let readFailed = Code(rawValue: "read-failed")
        /// No cgroup2 file system is mounted.
        public static let cgroupMountNotFound = Code(rawValue: "cgroup2-not-mounted")
        /// The enforcer's state file could not be read, parsed or written.
        public static let stateFileFailed = Code(rawValue: "state-file-failed")
        /// A process could not be moved into a scope of its own.
        public static let confineFailed = Code(rawValue: "confine-failed")
        /// The thread's scheduling policy or nice value could not be changed.
        public static let priorityFailed = Code(rawValue: "priority-failed")
    }

    /// What kind of operation failed.
    public var code: Code
    /// A sentence for people: what was attempted on what.
    public var message: String
    /// The kernel's error, when the failure came from a system call.
    public var errno: Errno?

    /// Creates an error.
    public init(_ code: Code, _ message: String, errno: Errno? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// `code: message (errno)`.
    public var description: String {
        if let errno { "\(code): \(message) (\(errno))" } else { "\(code): \(message)" }
    }
}
