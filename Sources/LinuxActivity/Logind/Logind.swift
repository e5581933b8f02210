import CSystemd
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
            try? bus.addMatch(
                "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.DBus.Properties',"
                    + "member='PropertiesChanged',path_namespace='/org/freedesktop/login1'")
            try? bus.addMatch("type='signal',sender='org.freedesktop.login1',interface='\(Self.sessionInterface)'")
        }
    }

    /// Whether the D-Bus half (idle, lock, leader, inhibitors) is available.
    public var hasBus: Bool { bus != nil }

    /// The current sessions, refreshed from whatever changed since the last call. `now` is the monotonic time, used
    /// only to pace polling.
    public func sessions(now: Duration) -> [SessionInfo] {
        if monitor.takeChanges() { needsFullReload = true }
        for signal in bus?.process() ?? [] {
            if signal.path.hasPrefix("/org/freedesktop/login1/session/") {
                if let session = cache.values.first(where: { Self.objectPath(of: $0.id) == signal.path }) {
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
        var path: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_encode("/org/freedesktop/login1/session", session.rawValue, &path) >= 0, let path else {
            return "/org/freedesktop/login1/session/" + session.rawValue
        }
        defer { free(path) }
        return String(cString: path)
    }

    private func read(_ id: SessionID, previous: SessionInfo?, staticFieldsKnown: Bool = false) -> SessionInfo? {
        var info: SessionInfo
        if staticFieldsKnown, let previous {
            info = previous
            info.state = SDLogin.state(of: id) ?? previous.state
        } else {
            guard let user = SDLogin.user(of: id) else { return nil }
            let path = Self.objectPath(of: id)
            let leader = bus?.uint32Property(
                destination: Self.service, path: path, interface: Self.sessionInterface, name: "Leader")
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
                bus.boolProperty(destination: Self.service, path: path, interface: Self.sessionInterface, name: "IdleHint")
                ?? false
            info.lockedHint =
                bus.boolProperty(
                    destination: Self.service, path: path, interface: Self.sessionInterface, name: "LockedHint") ?? false
        }
        return info
    }

    private func readIdleInhibitors() -> Set<UserID> {
        guard let bus else { return [] }
        let users = try? bus.call(
            destination: Self.service, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
            method: "ListInhibitors"
        ) { reader -> Set<UserID> in
            var users: Set<UserID> = []
            guard reader.enter("a", "(ssssuu)") else { return users }
            while reader.enter("r", "ssssuu") {
                let what = reader.string() ?? ""
                _ = reader.string()
                _ = reader.string()
                let mode = reader.string() ?? ""
                let uid = reader.uint32()
                _ = reader.uint32()
                reader.exit()
                if mode == "block", what.split(separator: ":").contains("idle"), let uid { users.insert(UserID(uid)) }
            }
            reader.exit()
            return users
        }
        return users ?? []
    }

    /// The login name of a uid (`getpwuid_r(3)`), or the number when it has none.
    public static func userName(of user: UserID) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(user.rawValue, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let name = entry.pw_name
        else { return String(user.rawValue) }
        return String(cString: name)
    }

    /// The home directory of a uid, or nil.
    public static func home(of user: UserID) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(user.rawValue, &entry, &buffer, buffer.count, &result) == 0, result != nil,
            let home = entry.pw_dir
        else { return nil }
        return String(cString: home)
    }
}
