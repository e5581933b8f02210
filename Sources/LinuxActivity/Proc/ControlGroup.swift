/// A process's place in the cgroup tree, from `/proc/PID/cgroup`.
public struct ControlGroup: Hashable, Sendable {
    /// The unified (v2) path, e.g. `/user.slice/user-1000.slice/session-3.scope`; on a legacy (v1-only) system,
    /// the `name=systemd` hierarchy's path, which systemd keeps with the same layout.
    public var path: String

    public init(path: String) { self.path = path }

    /// Parses `/proc/PID/cgroup`. Lines are `ID:CONTROLLERS:PATH`; PATH itself may contain `:`. The v2 line
    /// (`0::PATH`) wins; on v1-only systems the `name=systemd` line is used. Returns nil when neither exists.
    public init?(parsing text: String) {
        var legacy: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let first = line.firstIndex(of: ":") else { continue }
            let rest = line[line.index(after: first)...]
            guard let second = rest.firstIndex(of: ":") else { continue }
            let hierarchy = line[..<first]
            let controllers = rest[..<second]
            let path = String(rest[rest.index(after: second)...])
            if hierarchy == "0", controllers.isEmpty {
                self.path = path
                return
            }
            if controllers == "name=systemd" { legacy = path }
        }
        guard let legacy else { return nil }
        self.path = legacy
    }

    /// The path's components, last first: the unit the process lives in and the slices above it.
    public var units: [Substring] { path.split(separator: "/").reversed() }

    /// The uid whose user manager or `user-UID.slice` holds this cgroup, if any.
    public var sliceOwner: UInt32? {
        for component in path.split(separator: "/") {
            if component.hasPrefix("user@"), component.hasSuffix(".service") {
                return UInt32(component.dropFirst(5).dropLast(8))
            }
            if component.hasPrefix("user-"), component.hasSuffix(".slice") {
                return UInt32(component.dropFirst(5).dropLast(6))
            }
        }
        return nil
    }

    /// The logind session whose scope holds this cgroup (`session-ID.scope`), if any.
    public var sessionScope: String? {
        for component in path.split(separator: "/") where component.hasPrefix("session-") && component.hasSuffix(".scope") {
            return String(component.dropFirst(8).dropLast(6))
        }
        return nil
    }

    /// Whether the cgroup lies inside a user manager's tree (`user@UID.service`), where desktops start apps.
    public var isInUserManager: Bool {
        path.split(separator: "/").contains { $0.hasPrefix("user@") && $0.hasSuffix(".service") }
    }
}
