import Glibc
import ScreenTimeModel

/// Follows logind's sessions: sd-login for the list and static fields, the login1 D-Bus API for `Leader`,
/// `IdleHint`, `LockedHint` and idle inhibitors. Changes come from `sd_login_monitor` and D-Bus signals; only tty
/// sessions' `IdleHint` (which follows the tty's access time without a signal) and the inhibitor list are polled.
///
/// Owned by one task (it holds a `Bus`).
public final class Logind {
    static let service = "org.freedesktop.login1"
    static let sessionInterface = "org.freedesktop.login1.Session"

    private let bus: Bus?
    private let signalPaths = SignalPaths()
    private let monitor: LoginMonitor
    private var cache: [SessionID: SessionInfo] = [:]
    private var needsFullReload = true
    private var dirty: Set<SessionID> = []
    private var lastPoll: Duration?
    private var inhibitedUsers: Set<UserID> = []
    /// How often the signal-less facts are re-read.
    public var pollInterval: Duration = .seconds(5)

    /// Whether logind runs on this machine.
    public static var isAvailable: Bool { SDLogin.isAvailable }

    /// Connects to logind. Throws when logind isn't running; a missing system bus is tolerated (the D-Bus-only
    /// fields are then left at their defaults).
    public init() throws(LinuxActivityError) {
        guard SDLogin.isAvailable else {
            throw LinuxActivityError(.logind, "systemd-logind is not running (no /run/systemd/seats)")
        }
        monitor = try LoginMonitor()
        bus = try? Bus.system()
        if let bus {
            let signalPaths = signalPaths
            try? bus.addMatch(
                "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.DBus.Properties',"
                    + "member='PropertiesChanged',path_namespace='/org/freedesktop/login1'"
            ) { signalPaths.received.append($0.path ?? "") }
            try? bus.addMatch("type='signal',sender='org.freedesktop.login1',interface='\(Self.sessionInterface)'") {
                signalPaths.received.append($0.path ?? "")
            }
        }
    }

    /// Whether the D-Bus half (idle, lock, leader, inhibitors) is available.
    public var hasBus: Bool { bus != nil }

    /// The current sessions, refreshed from whatever changed since the last call. `now` is the monotonic time, used
    /// only to pace polling.
    public func sessions(now: Duration) -> [SessionInfo] {
        if monitor.takeChanges() { needsFullReload = true }
        try? bus?.processPending()
        for path in signalPaths.take() {
            if path.hasPrefix("/org/freedesktop/login1/session/") {
                if let session = cache.values.first(where: { Self.objectPath(of: $0.id) == path }) {
                    dirty.insert(session.id)
                }
            } else {
                // Manager or seat properties: ActiveSession of a seat, inhibitors.
                needsFullReload = true
            }
        }
        let pollDue = lastPoll.map { now - $0 >= pollInterval } ?? true
        if pollDue {
            lastPoll = now
            inhibitedUsers = readIdleInhibitors()
            for session in cache.values where session.type == .tty { dirty.insert(session.id) }
        }
        if needsFullReload {
            needsFullReload = false
            dirty.removeAll()
            var fresh: [SessionID: SessionInfo] = [:]
            for id in (try? SDLogin.sessions()) ?? [] {
                if let info = read(id, previous: cache[id]) { fresh[id] = info }
            }
            cache = fresh
        } else {
            for id in dirty {
                if let info = read(id, previous: cache[id], staticFieldsKnown: true) { cache[id] = info }
            }
            dirty.removeAll()
        }
        return cache.values.sorted { $0.id < $1.id }
    }

    /// Whether a user holds an idle inhibitor (`ListInhibitors` with `idle` in what): a playing video is use.
    public func holdsIdleInhibitor(_ user: UserID) -> Bool { inhibitedUsers.contains(user) }

    static func objectPath(of session: SessionID) -> String {
        Bus.objectPath("/org/freedesktop/login1/session", escaping: session.rawValue)
            ?? "/org/freedesktop/login1/session/" + session.rawValue
    }

    private func read(_ id: SessionID, previous: SessionInfo?, staticFieldsKnown: Bool = false) -> SessionInfo? {
        var info: SessionInfo
        if staticFieldsKnown, let previous {
            info = previous
            info.state = SDLogin.state(of: id) ?? previous.state
        } else {
            guard let user = SDLogin.user(of: id) else { return nil }
            let path = Self.objectPath(of: id)
            let leader =
                (try? bus?.property(
                    destination: Self.service, path: path, interface: Self.sessionInterface, name: "Leader"))?
                .uint32Value
            info = SessionInfo(
                id: id, user: user, userName: Self.userName(of: user),
                sessionClass: SessionClass(rawValue: SDLogin.sessionClass(of: id) ?? "") ?? .unknown,
                type: SessionType(rawValue: SDLogin.type(of: id) ?? "") ?? .unspecified,
                state: SDLogin.state(of: id) ?? "unknown", seat: SDLogin.seat(of: id), tty: SDLogin.tty(of: id),
                display: SDLogin.display(of: id), leader: leader.flatMap { $0 == 0 ? nil : ProcessID(Int32($0)) },
                remote: SDLogin.isRemote(id), desktop: SDLogin.desktop(of: id), active: false, idleHint: false,
                lockedHint: false)
        }
        info.active = SDLogin.isActive(id)
        if let bus {
            let path = Self.objectPath(of: id)
            info.idleHint =
                (try? bus.property(
                    destination: Self.service, path: path, interface: Self.sessionInterface, name: "IdleHint"))?
                .boolValue ?? false
            info.lockedHint =
                (try? bus.property(
                    destination: Self.service, path: path, interface: Self.sessionInterface, name: "LockedHint"))?
                .boolValue ?? false
        }
        return info
    }

    private func readIdleInhibitors() -> Set<UserID> {
        guard let bus else { return [] }
        let reply = try? bus.call(
            destination: Self.service, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
            member: "ListInhibitors")
        // a(ssssuu): what, who, why, mode, uid, pid.
        guard case .array(_, let inhibitors)? = reply?.readAll().first else { return [] }
        var users: Set<UserID> = []
        for case .structure(let fields) in inhibitors where fields.count == 6 {
            let what = fields[0].stringValue ?? ""
            let mode = fields[3].stringValue ?? ""
            if mode == "block", what.split(separator: ":").contains("idle"), let uid = fields[4].uint32Value {
                users.insert(UserID(uid))
            }
        }
        return users
    }

    /// The login name of a uid (`getpwuid_r(3)`), or the number when it has none.
    public static func userName(of user: UserID) -> String {
        account(of: user)?.name ?? String(user.rawValue)
    }

    /// The home directory of a uid, or nil.
    public static func home(of user: UserID) -> String? {
        account(of: user)?.home
    }

    /// The login name and home directory of a uid (`getpwuid_r(3)`: a directory's accounts too, listed or not), or
    /// nil when no account has it.
    public static func account(of user: UserID) -> (name: String, home: String?)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(user.rawValue, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.pw_name
        else { return nil }
        return (String(cString: name), entry.pw_dir.map { String(cString: $0) })
    }
}

/// Object paths of the login1 signals received since the last `take()`; filled by the bus's match handlers inside
/// `Bus.process()`, on the thread that owns the `Logind`.
private final class SignalPaths {
    var received: [String] = []

    func take() -> [String] {
        defer { received.removeAll(keepingCapacity: true) }
        return received
    }
}
