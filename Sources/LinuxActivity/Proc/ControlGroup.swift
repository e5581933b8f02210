import CLinux
import ScreenTimeModel

/// A process's place in the cgroup tree, from `/proc/PID/cgroup`.
public struct ControlGroup: Hashable, Sendable {
    /// The unified (v2) path, e.g. `/user.slice/user-1000.slice/session-3.scope`; on a legacy (v1-only) system,
    /// the `name=systemd` hierarchy's path, which systemd keeps with the same layout.
    public let path: String
    /// The logind session whose scope holds this cgroup (`session-ID.scope`), if any.
    public let sessionScope: String?
    /// The uid whose user manager (`user@UID.service`) or `user-UID.slice` holds this cgroup, if any.
    public let sliceOwner: UInt32?
    /// Whether the cgroup holds the user's apps: it lies in a user manager's `app.slice`, where desktops start apps,
    /// or it is a scope the guardian daemon moved a shielded app into (`user-UID.slice/app-screentime-….scope`).
    public let isInAppSlice: Bool
    /// Whether the cgroup lies inside a user manager's tree (`user@UID.service`).
    public let isInUserManager: Bool
    /// Whether the path mentions flatpak anywhere (flatpak names its apps' scopes `app-flatpak-ID-N.scope`).
    public let mentionsFlatpak: Bool

    /// What the name of every scope the daemon has a service manager make for a shielded process begins with
    /// (`app-screentime-APP-PID.scope`).
    public static let shieldScopePrefix = "app-screentime-"

    /// Whether `path` is a scope the guardian daemon had the system manager make for a shielded process of `user`
    /// (`/user.slice/user-UID.slice/app-screentime-APP-PID.scope`): root's, so the user can neither thaw it, move a
    /// process out of it or into it, nor make one of that name (their own manager's units live in
    /// `user@UID.service`). That a process is in it is the guardian daemon's word that it is APP.
    public static func isGuardianShieldScope(_ path: String, of user: UserID) -> Bool {
        let prefix = "/user.slice/user-\(user.rawValue).slice/"
        guard path.hasPrefix(prefix) else { return false }
        let leaf = path.dropFirst(prefix.count)
        return leaf.hasPrefix(shieldScopePrefix) && leaf.hasSuffix(".scope") && !leaf.contains("/")
    }

    /// The process a guardian's shield scope (`isGuardianShieldScope`) was made for: the one its name ends with
    /// (`…-PID.scope`), which the guardian daemon found to be APP and moved there. What that process starts later lives
    /// in the same scope, and is not what the guardian found (a released terminal's scope would name every game run
    /// from it).
    public static func guardianShieldScopeProcess(_ path: String, of user: UserID) -> ProcessID? {
        guard isGuardianShieldScope(path, of: user), let dash = path.lastIndex(of: "-") else { return nil }
        let digits = path[path.index(after: dash)...].dropLast(".scope".count)
        guard let pid = Int32(digits) else { return nil }
        return ProcessID(pid)
    }

    public init(path: String) {
        self.path = path
        var sessionScope: String?
        var sliceOwner: UInt32?
        var isInAppSlice = false
        var isInUserManager = false
        // By place, not by name alone: a session's scope and a user manager are children of `user-UID.slice`, itself
        // a child of `user.slice` (below whatever a container's manager puts above); a user's manager may make units
        // of any name in its own tree (a scope named `session-9.scope`, a service `user@0.service`), which are
        // neither, and a user slice of theirs (`--slice=user-0.slice`) is no user's.
        var previous: Substring = ""
        var userSlice: Substring?
        for component in path.utf8.split(separator: UInt8(ascii: "/")) {
            let text = Substring(component)
            defer { previous = text }
            if userSlice == nil, previous == "user.slice", text.hasPrefix("user-"), text.hasSuffix(".slice"),
                let owner = UInt32(text.dropFirst(5).dropLast(6))
            {
                sliceOwner = owner
                userSlice = text
            } else if let userSlice, previous == userSlice, text.hasPrefix("session-"), text.hasSuffix(".scope") {
                sessionScope = String(text.dropFirst(8).dropLast(6))
            } else if let userSlice, previous == userSlice, text == "user@\(sliceOwner!).service" {
                isInUserManager = true
            } else if text == "app.slice" || (text.hasPrefix(Self.shieldScopePrefix) && text.hasSuffix(".scope")) {
                isInAppSlice = true
            }
        }
        self.sessionScope = sessionScope
        self.sliceOwner = sliceOwner
        self.isInAppSlice = isInAppSlice
        self.isInUserManager = isInUserManager
        // A byte search: `String.contains` compares Unicode characters, and this runs for every new process.
        self.mentionsFlatpak = path.containsBytes("flatpak")
    }

    /// Parses `/proc/PID/cgroup`. Lines are `ID:CONTROLLERS:PATH`; PATH itself may contain `:`. The v2 line
    /// (`0::PATH`) wins; on v1-only systems the `name=systemd` line is used. Returns nil when neither exists.
    public init?(parsing text: String) {
        self.init(parsing: Array(text.utf8)[...])
    }

    /// Parses the bytes of `/proc/PID/cgroup` (see `init(parsing:)` for text).
    public init?(parsing bytes: ArraySlice<UInt8>) {
        var legacy: ArraySlice<UInt8>?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let first = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let rest = line[(first + 1)...]
            guard let second = rest.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let hierarchy = line[..<first]
            let controllers = rest[..<second]
            let path = rest[(second + 1)...]
            if hierarchy.elementsEqual("0".utf8), controllers.isEmpty {
                self.init(path: String(decoding: path, as: UTF8.self))
                return
            }
            if controllers.elementsEqual("name=systemd".utf8) { legacy = path }
        }
        guard let legacy else { return nil }
        self.init(path: String(decoding: legacy, as: UTF8.self))
    }
}
