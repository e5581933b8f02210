import ScreenTimeModel

/// The kind of a logind session (`Type=`).
public enum SessionType: String, Sendable, Codable, Hashable {
    case tty, x11, wayland, mir, unspecified
}

/// The class of a logind session (`Class=`).
public enum SessionClass: String, Sendable, Codable, Hashable {
    case user, greeter, lockScreen = "lock-screen", background, manager, unknown
}

/// One logind session as sd-login and the login1 D-Bus API describe it.
public struct SessionInfo: Hashable, Sendable {
    public var id: SessionID
    public var user: UserID
    public var userName: String
    public var sessionClass: SessionClass
    public var type: SessionType
    /// `online`, `active` or `closing`.
    public var state: String
    public var seat: String?
    public var tty: String?
    public var display: String?
    /// The session leader (the D-Bus `Leader` property: sd-login of systemd 252 has no getter for it).
    public var leader: ProcessID?
    public var remote: Bool
    public var desktop: String?
    /// Whether this is the active session of its seat (always true for seatless sessions that are `active`).
    public var active: Bool
    public var idleHint: Bool
    public var lockedHint: Bool

    public init(
        id: SessionID, user: UserID, userName: String, sessionClass: SessionClass, type: SessionType, state: String,
        seat: String?, tty: String?, display: String?, leader: ProcessID?, remote: Bool, desktop: String?,
        active: Bool, idleHint: Bool, lockedHint: Bool
    ) {
        self.id = id
        self.user = user
        self.userName = userName
        self.sessionClass = sessionClass
        self.type = type
        self.state = state
        self.seat = seat
        self.tty = tty
        self.display = display
        self.leader = leader
        self.remote = remote
        self.desktop = desktop
        self.active = active
        self.idleHint = idleHint
        self.lockedHint = lockedHint
    }

    /// Whether the session has a graphical display server.
    public var isGraphical: Bool { type == .x11 || type == .wayland || type == .mir }
}
