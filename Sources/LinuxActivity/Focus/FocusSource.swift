import ScreenTimeModel

/// The focused window of a graphical session as a compositor or X server reports it.
public struct FocusedWindow: Hashable, Sendable {
    /// The process that owns the window, when the source can tell.
    public var pid: ProcessID?
    /// X11 `WM_CLASS` class (or instance when the class is empty), or the Wayland `app_id`; matched against
    /// desktop entries' `StartupWMClass` and ids.
    public var windowClass: String?
    /// The desktop entry the compositor itself matched the window to (GNOME Shell's `Shell.App` id, KWin's
    /// `desktopFileName`), without `.desktop`; nil when the source does not know it.
    public var desktopEntryID: String?

    /// Creates a reading of one window; `desktopEntryID` is only known to GNOME Shell and KWin.
    public init(pid: ProcessID?, windowClass: String?, desktopEntryID: String? = nil) {
        self.pid = pid
        self.windowClass = windowClass
        self.desktopEntryID = desktopEntryID
    }
}

/// One reading of a focus source: the focused window and what the source knows of the user's presence.
public struct FocusReading: Hashable, Sendable {
    /// The focused window, or nil when nothing has focus.
    public var window: FocusedWindow?
    /// Time since the last input, when the source measures it (X11 screen saver, Mutter, KWin).
    public var idleTime: Duration?
    /// Whether a client holds an idle inhibitor (a playing video): the user counts as present.
    public var idleInhibited: Bool
    /// Whether the source sees which window is in front; false for one that measures idle time alone (GNOME's idle
    /// monitor where the extension can't be believed), and then every app of the session counts.
    public var seesFocus: Bool

    /// Creates a reading; sources that do not measure idle time leave `idleTime` nil.
    public init(
        window: FocusedWindow?, idleTime: Duration? = nil, idleInhibited: Bool = false, seesFocus: Bool = true
    ) {
        self.window = window
        self.idleTime = idleTime
        self.idleInhibited = idleInhibited
        self.seesFocus = seesFocus
    }
}

/// The seat's idleness as a display server tells it when it changes (sway's and KWin's idle notifications, Mutter's
/// watches, X11's `IDLETIME` alarm): since when it has had no input, or nil while it has had input within the
/// resolution the server was asked for.
struct MeasuredIdle: Hashable, Sendable {
    var since: ContinuousClock.Instant?

    /// The idle time at `now`: zero while the seat has had input within the resolution.
    func idleTime(at now: ContinuousClock.Instant) -> Duration { since.map { now - $0 } ?? .zero }
}

/// Whole milliseconds, the unit the display servers' idle protocols take.
extension Duration {
    /// The span in whole milliseconds, rounded toward zero.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// A source of focus for one graphical session (X11, sway IPC, KWin script, GNOME Shell extension).
///
/// Sources follow the compositor's events on their own thread or task and keep the latest reading, so that
/// `current()` is cheap enough to call every tick. A source whose connection is lost reports it by returning
/// nil from `current()`; the collector then falls back and retries later.
public protocol FocusSource: AnyObject, Sendable {
    /// A short name shown by `screentime now`: `x11`, `sway`, `kwin`, `gnome-shell`.
    var name: String { get }
    /// The latest reading, or nil when the source has lost its connection.
    func current() -> FocusReading?
    /// Closes the connection and stops following events. Idempotent.
    func close()
}
