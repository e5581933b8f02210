import ScreenTimeModel

/// How an app was recognized, most trusted first.
public enum IdentitySource: String, Hashable, Sendable, Codable {
    /// The systemd scope or service the process lives in (`app-…-ID-….scope`).
    case unit
    /// The sandbox's `/.flatpak-info`.
    case flatpak
    /// The executable (or the interpreter's script) matched a desktop entry's `Exec`/`TryExec`.
    case desktopEntry = "desktop-entry"
    /// The focused window's X11 class or Wayland app_id matched a desktop entry.
    case windowClass = "window-class"
    /// Inherited from the nearest ancestor recognized by one of the sources above.
    case inherited
    /// The interpreter's script file name (no desktop entry, no recognized ancestor).
    case script
    /// The executable's file name (no desktop entry, no recognized ancestor).
    case executable

    /// Whether children without an identity of their own inherit this one.
    public var isInherited: Bool {
        switch self {
        case .unit, .flatpak, .desktopEntry, .windowClass, .inherited: true
        case .script, .executable: false
        }
    }
}

/// The app a process belongs to and how that was decided.
public struct ResolvedApp: Hashable, Sendable {
    public var id: AppID
    public var source: IdentitySource

    public init(id: AppID, source: IdentitySource) {
        self.id = id
        self.source = source
    }
}
