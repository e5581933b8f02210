import FoundationEssentials
import Glibc
import ScreenTimeModel

/// What the collector knows of a logind session, enough to pick and open its focus source.
public struct FocusSessionContext: Sendable {
    /// logind's `Type`: `x11`, `wayland`, `tty`, `mir`, `unspecified`.
    public var sessionType: String
    /// logind's `Display` (X11 sessions), else `DISPLAY` from `environment`.
    public var display: String?
    /// logind's `Desktop` (`XDG_SESSION_DESKTOP`: `gnome`, `KDE`, `sway`), else `XDG_CURRENT_DESKTOP`.
    public var desktop: String?
    /// The session's user.
    public var uid: UserID
    /// The user's home directory (for `~/.Xauthority`).
    public var home: String?
    /// The user's runtime directory, `/run/user/UID` (`XDG_RUNTIME_DIR`).
    public var runtimeDirectory: String
    /// The environment of a process of the session (`ProcessEnvironment.read(pid:)` of its leader or of a
    /// process with a `DISPLAY`/`WAYLAND_DISPLAY`): `XAUTHORITY`, `SWAYSOCK`, `XDG_CURRENT_DESKTOP`, ...
    public var environment: [String: String]
    /// logind's id of the session.
    public var sessionID: String?
    /// The session's leader (logind's `Leader`).
    public var leader: ProcessID?
    /// Whether the session's user is limited by a guardian, who must not be able to pick what reports their focus:
    /// the desktop is logind's word alone (not `XDG_CURRENT_DESKTOP`, which the user sets), a session of a named
    /// desktop gets that desktop's source alone, a sway is believed only as the session's own compositor, GNOME
    /// Shell only while it runs none of the user's own extensions, and X11's `_NET_ACTIVE_WINDOW` (which any client
    /// may set) only where it names the window that holds the keyboard focus.
    public var limitedByGuardian: Bool
    /// How long without input before a display server tells the session idle (sway's and KWin's notifications,
    /// Mutter's watches, X11's alarm): the idle time is zero before it.
    public var idleResolution: Duration

    /// Creates a context; `runtimeDirectory` defaults to `/run/user/UID`.
    public init(
        sessionType: String, display: String? = nil, desktop: String? = nil, uid: UserID, home: String? = nil,
        runtimeDirectory: String? = nil, environment: [String: String] = [:], sessionID: String? = nil,
        leader: ProcessID? = nil, limitedByGuardian: Bool = false, idleResolution: Duration = .seconds(5)
    ) {
        self.sessionType = sessionType
        self.display = display
        self.desktop = desktop
        self.uid = uid
        self.home = home
        self.runtimeDirectory = runtimeDirectory ?? "/run/user/\(uid.rawValue)"
        self.environment = environment
        self.sessionID = sessionID
        self.leader = leader
        self.limitedByGuardian = limitedByGuardian
        self.idleResolution = idleResolution
    }

    /// The idle resolution for an idle timeout: 5 s, or half the timeout when that is shorter, so that a session is
    /// told idle before the timeout passes.
    public static func idleResolution(forTimeout timeout: Duration) -> Duration {
        min(.seconds(5), max(.milliseconds(100), timeout / 2))
    }

    /// The Wayland focus sources to try, in order: the one of the desktop the session names first (logind's
    /// `Desktop`, else, but for a guardian's limited user, `XDG_CURRENT_DESKTOP`); for a guardian's limited user, that
    /// one alone, so that a compositor or a bus name of theirs is never asked instead (a sway nested in GNOME, a
    /// program that owns `org.kde.KWin` where KWin doesn't run).
    var waylandSources: [String] {
        let named = (desktop ?? (limitedByGuardian ? nil : environment["XDG_CURRENT_DESKTOP"]) ?? "").lowercased()
        let own: String? =
            named.contains("gnome") || named.hasPrefix("ubuntu") || named == "pop"
            ? "gnome-shell"
            : named.contains("kde") || named.contains("plasma") ? "kwin" : named.contains("sway") ? "sway" : nil
        guard let own else { return ["sway", "gnome-shell", "kwin"] }
        if limitedByGuardian { return [own] }
        return [own] + ["sway", "gnome-shell", "kwin"].filter { $0 != own }
    }
}

/// Why no focus source answered for a session: every source tried, with its reason, for `screentime now`.
public struct FocusSourceUnavailable: Error, Sendable, CustomStringConvertible {
    /// Each source tried (`x11`, `sway`, `gnome-shell`, `kwin`) and why it could not be used, in order.
    public var attempts: [(source: String, error: FocusSourceError)]

    /// Creates the list of failed attempts.
    public init(attempts: [(source: String, error: FocusSourceError)]) {
        self.attempts = attempts
    }

    public var description: String {
        guard !attempts.isEmpty else { return "no focus source applies to this session" }
        return attempts.map { "\($0.source): \($0.error)" }.joined(separator: "; ")
    }
}

/// Picks and opens the focus source of a logind session.
///
/// - x11: `X11FocusSource` on the session's display, with the user's cookie (`XAuthority.candidatePaths`).
/// - wayland: the source of the desktop the session names first (`FocusSessionContext.waylandSources`; for a
///   guardian's limited user, that one alone), then the others: sway IPC if `SWAYSOCK` is set or a
///   `sway-ipc.UID.*.sock` is in the runtime directory; on the session bus (`DBUS_SESSION_BUS_ADDRESS`, else
///   `RUNTIME_DIR/bus`), the GNOME Shell extension or the KWin script.
/// - anything else (tty): no source; the collector uses the terminal's foreground process group.
///
/// Opening a source performs I/O (connect, first query): call it from the collector's service, not on every
/// tick; after a failure retry later (the compositor or window manager may not be up yet).
public enum FocusSources {
    /// Where to find the KWin script; tests and non-standard installs override it.
    public static let defaultKWinScriptPath = KWinFocusSource.defaultScriptPath

    /// Opens the right source for `context`, or throws every reason why none could be opened.
    public static func make(_ context: FocusSessionContext, kwinScriptPath: String = defaultKWinScriptPath)
        throws(FocusSourceUnavailable) -> any FocusSource
    {
        var attempts: [(String, FocusSourceError)] = []
        switch context.sessionType {
        case "x11":
            do {
                return try openX11(context)
            } catch {
                attempts.append(("x11", error))
            }
        case "wayland":
            for name in context.waylandSources {
                do throws(FocusSourceError) {
                    switch name {
                    case "sway":
                        let sockets = swaySockets(context)
                        if sockets.isEmpty {
                            throw FocusSourceError(
                                .noSourceForSession,
                                "no SWAYSOCK and no sway-ipc socket in \(context.runtimeDirectory)")
                        }
                        // A guardian's limited user's sway must be the session's own compositor.
                        let session =
                            context.limitedByGuardian
                            ? SessionCompositor(id: context.sessionID ?? "", leader: context.leader) : nil
                        for socket in sockets {
                            do {
                                return try SwayFocusSource(
                                    socketPath: socket, session: session, runtimeDirectory: context.runtimeDirectory,
                                    waylandDisplay: context.environment["WAYLAND_DISPLAY"],
                                    idleResolution: context.idleResolution)
                            } catch {
                                attempts.append((name, error))
                            }
                        }
                    case "gnome-shell":
                        do {
                            return try GnomeShellFocusSource(
                                busAddress: busAddress(context), idleResolution: context.idleResolution,
                                allowsUsersExtensions: !context.limitedByGuardian)
                        } catch
                            where context.limitedByGuardian
                            && (error.code == .integrationMissing || error.code == .unsupported)
                        {
                            // Its focus can't be believed; its idle time still tells a locked or left screen.
                            attempts.append((name, error))
                            return try GnomeIdleSource(
                                busAddress: busAddress(context), idleResolution: context.idleResolution)
                        }
                    default:
                        return try KWinFocusSource(
                            busAddress: busAddress(context), scriptPath: kwinScriptPath,
                            runtimeDirectory: context.runtimeDirectory,
                            waylandDisplay: context.environment["WAYLAND_DISPLAY"],
                            asksScreenSaver: !context.limitedByGuardian, idleResolution: context.idleResolution)
                    }
                } catch {
                    attempts.append((name, error))
                }
            }
        default:
            attempts.append(
                (
                    "none",
                    FocusSourceError(
                        .noSourceForSession, "sessions of type \(context.sessionType) have no window focus to follow")
                ))
        }
        throw FocusSourceUnavailable(attempts: attempts)
    }

    private static func openX11(_ context: FocusSessionContext) throws(FocusSourceError) -> X11FocusSource {
        guard let name = context.display ?? context.environment["DISPLAY"], !name.isEmpty else {
            throw FocusSourceError(.noSourceForSession, "the X11 session has no display")
        }
        guard let display = X11Display(name) else {
            throw FocusSourceError(.connectionFailed, "cannot parse the X display name \(name)")
        }
        let paths = XAuthority.candidatePaths(
            environment: context.environment, home: context.home, runtimeDirectory: context.runtimeDirectory)
        return try X11FocusSource(
            display: display, authority: XAuthority.find(for: display, in: paths)?.cookie,
            followsKeyboardFocus: context.limitedByGuardian, idleResolution: context.idleResolution)
    }

    private static func swaySockets(_ context: FocusSessionContext) -> [String] {
        var sockets: [String] = []
        if let socket = context.environment["SWAYSOCK"], !socket.isEmpty { sockets.append(socket) }
        for socket in SwayFocusSource.sockets(in: context.runtimeDirectory, uid: context.uid)
        where !sockets.contains(socket) {
            sockets.append(socket)
        }
        return sockets
    }

    private static func busAddress(_ context: FocusSessionContext) -> String {
        if let address = context.environment["DBUS_SESSION_BUS_ADDRESS"], address.hasPrefix("unix:path="),
            getuid() == context.uid.rawValue
        {
            return address
        }
        let path =
            context.environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { address -> String? in
                guard address.hasPrefix("unix:path=") else { return nil }
                return String(address.dropFirst("unix:path=".count).prefix { $0 != "," })
            } ?? UserSessionBus.socketPath(runtimeDirectory: context.runtimeDirectory)
        return UserSessionBus.address(ofUserBusAt: path, uid: context.uid.rawValue)
    }
}
