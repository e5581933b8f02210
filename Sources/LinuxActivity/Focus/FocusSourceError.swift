import SystemPackage

/// Why a focus source could not be opened or stopped answering.
///
/// The `message` is meant for people: `screentime now` shows it next to the session it concerns.
public struct FocusSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, in categories the collector can act on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The display server, compositor socket or bus could not be reached.
        public static let connectionFailed = Code(rawValue: "connection-failed")
        /// The server is reachable but lacks what the source needs (an extension, a protocol, a window manager).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The desktop runs, but the Screen Time integration (GNOME Shell extension, KWin script) is not present.
        public static let integrationMissing = Code(rawValue: "integration-missing")
        /// The session is of a kind no focus source handles (tty, an unknown Wayland compositor).
        public static let noSourceForSession = Code(rawValue: "no-source-for-session")
        /// The peer answered something that does not follow its protocol.
        public static let protocolViolation = Code(rawValue: "protocol-violation")
    }

    /// The category of the failure.
    public var code: Code
    /// A sentence for people, naming the display, socket or bus concerned.
    public var message: String
    /// The system error underneath, when there is one.
    public var underlying: Errno?

    /// Creates an error; `underlying` is the `errno` or negative return value of the failing call, if any.
    public init(_ code: Code, _ message: String, underlying: Errno? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// A failure on the session bus as a focus source's: a peer that lacks the called service or method means the
    /// integration is missing, a message that could not be built breaks the protocol, anything else is a failed
    /// connection. The message and `Errno` are the bus's.
    init(bus error: LinuxActivityError) {
        let code: Code =
            switch (error.code, error.remoteError?.name) {
            case (.busMessage, _): .protocolViolation
            case (_, "org.freedesktop.DBus.Error.ServiceUnknown"?), (_, "org.freedesktop.DBus.Error.UnknownMethod"?):
                .integrationMissing
            default: .connectionFailed
            }
        self.init(code, error.message, underlying: error.errno)
    }

    /// Runs `body`, reporting a bus failure as a focus source's (`init(bus:)`).
    static func onBus<Result>(_ body: () throws(LinuxActivityError) -> Result) throws(FocusSourceError) -> Result {
        do {
            return try body()
        } catch {
            throw FocusSourceError(bus: error)
        }
    }

    public var description: String {
        guard let underlying else { return message }
        return "\(message): \(underlying)"
    }
}

extension EventThread {
    /// An event thread for a focus source, its failure said as the source's.
    static func forFocusSource() throws(FocusSourceError) -> EventThread {
        do { return try EventThread() } catch {
            throw FocusSourceError(.connectionFailed, "cannot create a wake-up pipe", underlying: error)
        }
    }
}
