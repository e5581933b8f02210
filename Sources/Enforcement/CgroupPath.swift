/// A cgroup v2 path relative to the cgroup2 mount, as `/proc/PID/cgroup`'s `0::` line shows it
/// (`/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Game-4242.scope`).
public struct CgroupPath: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The path, starting with `/`.
    public var rawValue: String
    /// Creates a path; a missing leading `/` is added.
    public init(rawValue: String) { self.rawValue = rawValue.hasPrefix("/") ? rawValue : "/" + rawValue }
    /// Creates a path; a missing leading `/` is added.
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    /// The path.
    public var description: String { rawValue }
    /// Orders by the path's text.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The last component (`app-gnome-org.example.Game-4242.scope`); empty for the root cgroup.
    public var lastComponent: Substring {
        rawValue.split(separator: "/").last ?? ""
    }

    /// The v2 cgroup in a `/proc/PID/cgroup` file: the path of its `0::` line; nil when there is none (a cgroup v1
    /// only system) or the text is not such a file.
    public init?(procCgroupFile text: String) {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3)
            guard path.hasPrefix("/") else { return nil }
            self.init(rawValue: String(path))
            return
        }
        return nil
    }

    /// Whether this cgroup belongs to one app alone, so that freezing it stops that app and nothing else.
    ///
    /// True for the units a desktop or a package system starts per app: systemd app scopes
    /// (`app-gnome-org.example.Game-4242.scope`, `app-flatpak-org.example.Game-12345.scope`), snap scopes
    /// (`snap.supertuxkart.supertuxkart-<uuid>.scope`) and templated app services
    /// (`app-org.example.Game@ab12.service`).
    /// False for everything shared: session scopes (`session-3.scope`), slices (`app.slice`, `user-1000.slice`), the
    /// user manager (`user@1000.service`), `init.scope`, plain services, the root. A path with `.` or `..`
    /// components is refused as well, and so is one below a session scope.
    public var isAppOwnCgroup: Bool {
        let components = rawValue.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let leaf = components.last, !leaf.isEmpty else { return false }
        for component in components {
            if component.isEmpty || component == "." || component == ".." { return false }
            if component.hasPrefix("session-") && component.hasSuffix(".scope") { return false }
        }
        if leaf.hasSuffix(".scope") {
            let name = leaf.dropLast(".scope".count)
            if name.hasPrefix("app-") { return name.count > "app-".count }
            if name.hasPrefix("snap.") { return name.dropFirst("snap.".count).firstIndex(of: ".") != nil }
            return false
        }
        if leaf.hasSuffix(".service") {
            let name = leaf.dropLast(".service".count)
            guard name.hasPrefix("app-"), let at = name.firstIndex(of: "@") else { return false }
            // The app id before `@` and an instance after it must both be present.
            return name.distance(from: name.startIndex, to: at) > "app-".count && name.index(after: at) != name.endIndex
        }
        return false
    }
}
