import SystemPackage

/// The error of the daemon's system plumbing (journal, sd-daemon notifications, desktop notifications, monitor
/// extensions): what failed, in words, and the underlying `Errno` when there is one.
///
/// Expected outcomes are not errors: an extension that exits non-zero, times out or runs out of memory comes back as
/// an `ExtensionOutcome`; a service manager that isn't listening makes `SystemdNotifier` return `false`.
public struct DaemonServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of operation failed.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// A short, stable name for logs.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// `sd_journal_sendv(3)` refused a record (usually: no journald socket).
        public static let journalFailed = Code(rawValue: "journal-failed")
        /// `sd_notify(3)` could not send to `$NOTIFY_SOCKET`.
        public static let notifyFailed = Code(rawValue: "notify-failed")
        /// No connection to the D-Bus bus could be made, or it was lost.
        public static let busUnavailable = Code(rawValue: "bus-unavailable")
        /// Nobody owns `org.freedesktop.Notifications` on the bus: no notification daemon is running.
        public static let notificationServerMissing = Code(rawValue: "notification-server-missing")
        /// The notification server answered a call with an error, or a message could not be built.
        public static let notificationFailed = Code(rawValue: "notification-failed")
        /// A monitor extension could not be started (missing, not executable, no pipes).
        public static let extensionStartFailed = Code(rawValue: "extension-start-failed")
        /// The engine loop could not start (no descriptor for its wake-ups).
        public static let loopFailed = Code(rawValue: "loop-failed")
    }

    /// What kind of operation failed.
    public var code: Code
    /// A sentence for people: what was attempted on what, and how to fix it when that is known.
    public var message: String
    /// The kernel's (or libsystemd's) error, when the failure came from a system call.
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

extension Errno {
    /// The `Errno` of a negative libsystemd return value (`-errno`).
    init(negatedResult result: Int32) { self.init(rawValue: -result) }
}
