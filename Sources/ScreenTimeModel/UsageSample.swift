/// Whether a session's use counts at the moment of a sample.
public enum SessionPresence: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The seat's active session, unlocked, with the user present: use counts.
    case active
    /// The user has been away longer than the idle timeout (and no idle inhibitor holds the session).
    case idle
    /// The screen is locked: never counts.
    case locked
    /// Not the active session of its seat (switched away, or closing): never counts.
    case background

    public var description: String { rawValue }
    /// Whether usage accrues in this state.
    public var counts: Bool { self == .active }
}

/// One app in use in a sample: its token, its category's token and, for a browser that reports it, the web
/// domain in front.
public struct AppUse: Hashable, Sendable, Codable {
    public var application: ApplicationToken
    public var category: ActivityCategoryToken
    public var webDomain: WebDomainToken?
    public init(application: ApplicationToken, category: ActivityCategoryToken, webDomain: WebDomainToken? = nil) {
        self.application = application
        self.category = category
        self.webDomain = webDomain
    }
}

/// What the collector saw in one logind session at one tick: who, whether use counts, and which apps are in use.
///
/// `applicationsInUse` holds the foreground app when the session's focus is known (one element, or none when
/// nothing has focus), and every running app of the session when it is not (the conservative fallback).
public struct UsageSample: Hashable, Sendable, Codable {
    public var user: UserID
    public var session: SessionID
    public var presence: SessionPresence
    public var applicationsInUse: [AppUse]

    public init(user: UserID, session: SessionID, presence: SessionPresence, applicationsInUse: [AppUse]) {
        self.user = user
        self.session = session
        self.presence = presence
        self.applicationsInUse = applicationsInUse
    }
}
