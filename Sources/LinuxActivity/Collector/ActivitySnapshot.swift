import ScreenTimeModel

/// An app as `screentime now` shows it: its label and the process that put it there.
public struct AppInUse: Hashable, Sendable, Codable {
    public var id: AppID
    public var name: String
    public var token: ApplicationToken
    public var category: ActivityCategory
    public var categoryToken: ActivityCategoryToken
    /// The process in front (the foreground group leader, or the focused window's owner).
    public var pid: ProcessID?
    /// How the app was recognized.
    public var identifiedBy: IdentitySource
}

/// An app running in a session and how many processes it has there.
public struct RunningApp: Hashable, Sendable, Codable {
    public var id: AppID
    public var name: String
    public var token: ApplicationToken
    public var category: ActivityCategory
    public var processCount: Int
}

/// How the app in front of a session was determined.
public enum FocusKind: String, Hashable, Sendable, Codable {
    /// The terminal's foreground process group (tty sessions).
    case terminal
    /// A compositor or X server reported the focused window (`focusSource` names it).
    case window
    /// No focus source answered: every running app of the active, unlocked, non-idle session counts as in use.
    case fallback
}

/// One session at one tick: the logind facts, whether use counts, what is in front and what runs.
public struct SessionActivity: Hashable, Sendable, Codable {
    public var id: SessionID
    public var user: UserID
    public var userName: String
    public var type: String
    public var sessionClass: String
    public var state: String
    public var seat: String?
    public var tty: String?
    public var display: String?
    public var leader: ProcessID?
    public var remote: Bool
    public var desktop: String?
    public var active: Bool
    public var idle: Bool
    public var locked: Bool
    public var idleInhibited: Bool
    public var presence: SessionPresence
    public var focus: FocusKind
    /// The focus source's name (`tty`, `x11`, `sway`, `kwin`, `gnome-shell`) or why none answered.
    public var focusSource: String
    /// Where idleness came from (`logind`, `tty-atime`, `x11-screensaver`, ...).
    public var idleSource: String
    /// The app in front; nil when nothing is (or, with `fallback`, when it can't be known).
    public var foreground: AppInUse?
    public var runningApps: [RunningApp]
}

/// Everything the collector saw at one tick.
public struct ActivitySnapshot: Sendable, Codable {
    /// Whether sessions come from logind (`false`: derived from terminals in /proc).
    public var logind: Bool
    /// A sentence about degraded sources, shown once by front ends.
    public var notice: String?
    public var sessions: [SessionActivity]
    /// One usage sample per session, for the engine.
    public var samples: [UsageSample]
}
