import CXCB
import FoundationEssentials
import ScreenTimeModel
import Synchronization

/// Focus and idle time of an X11 session, followed through the window manager's `_NET_ACTIVE_WINDOW`.
///
/// A dedicated thread blocks in `poll(2)` on the X connection and re-reads the active window only when a
/// PropertyNotify for `_NET_ACTIVE_WINDOW` arrives on the root window; `current()` returns the latest reading
/// under a lock. The idle time comes the same way, from an alarm on the SYNC extension's `IDLETIME` counter
/// (`X11IdleAlarm`) that fires once the display has gone `idleResolution` without input and again at the next input;
/// a server without that counter is asked its MIT-SCREEN-SAVER idle time at each `current()` instead.
///
/// - The window's pid comes from the X-Resource extension (the server's view of the client's socket), then from
///   `_NET_WM_PID` when the client runs on this host (`WM_CLIENT_MACHINE`).
/// - The window class is `WM_CLASS`'s class, or its instance when the class is empty.
/// - Window managers clear `_NET_ACTIVE_WINDOW` for a moment while focus moves (openbox does): "no window" is
///   published only when it lasts longer than `debounce`.
/// - `_NET_ACTIVE_WINDOW` is a property of the root window, which any client may set: with `followsKeyboardFocus`
///   (a guardian's limited user's session) a window it names that doesn't hold the keyboard focus (the server's, set
///   by the window manager) is taken for the client that does.
public final class X11FocusSource: FocusSource {
    /// `x11`.
    public let name = "x11"
    /// The display this source is connected to.
    public let display: X11Display
    private let connection: X11Connection
    private let debounce: Duration
    private let followsKeyboardFocus: Bool
    private let idleAlarm: X11IdleAlarm?
    /// Where the idle time comes from: `SYNC IDLETIME` (alarms) or `MIT-SCREEN-SAVER` (asked); nil for neither.
    public let idleProtocol: String?
    private let state = Mutex(State())
    private let thread: EventThread

    private struct State {
        var window: FocusedWindow?
        /// What the `IDLETIME` alarm says.
        var idle = MeasuredIdle()
        var connected = true
        var statistics = FocusSourceStatistics()
    }

    /// Connects to `display`, checks that the window manager maintains `_NET_ACTIVE_WINDOW`, reads the focused
    /// window and starts following focus changes.
    ///
    /// - Parameters:
    ///   - display: the session's display (`Display` of the logind session).
    ///   - authority: the user's cookie (`XAuthority.find`); nil lets libxcb look up `XAUTHORITY`/`~/.Xauthority`
    ///     of this process.
    ///   - debounce: how long "no active window" must last before it is published.
    ///   - followsKeyboardFocus: whether the window that holds the keyboard focus wins over the one
    ///     `_NET_ACTIVE_WINDOW` names, when they differ (a program of the user's could name any window there).
    ///   - idleResolution: how long without input before the `IDLETIME` alarm says the display is idle; the idle time
    ///     is zero until then. Nil asks MIT-SCREEN-SAVER at each `current()` instead.
    public init(
        display: X11Display, authority: XAuthority?, debounce: Duration = .milliseconds(250),
        followsKeyboardFocus: Bool = false, idleResolution: Duration? = .seconds(5)
    ) throws(FocusSourceError) {
        self.display = display
        self.debounce = debounce
        self.followsKeyboardFocus = followsKeyboardFocus
        connection = try X11Connection(display: display, authority: authority)
        guard connection.windowManagerSupportsActiveWindow() else {
            throw FocusSourceError(
                .unsupported,
                "the window manager on X display \(display) does not maintain _NET_ACTIVE_WINDOW "
                    + "(none running yet, or one without EWMH support such as twm)")
        }
        thread = try EventThread.forFocusSource()
        if let idleResolution {
            idleAlarm = X11IdleAlarm(on: connection, threshold: idleResolution)
        } else {
            idleAlarm = nil
        }
        idleProtocol =
            idleAlarm != nil ? "SYNC IDLETIME" : connection.hasScreenSaverExtension ? "MIT-SCREEN-SAVER" : nil
        connection.selectRootPropertyChanges()
        let initial = readActiveWindow().window
        state.withLock {
            $0.window = initial
            $0.statistics.queries = 1
        }
        thread.start(name: "screentime-x11-focus") { [self] in runEventLoop() }
    }

    /// The latest focused window and the current idle time; nil once the X connection is lost or closed.
    public func current() -> FocusReading? {
        let idle = idleTime()
        return state.withLock { state in
            guard state.connected, !thread.isStopping else { return nil }
            return FocusReading(window: state.window, idleTime: idle)
        }
    }

    /// Time since the last keyboard or pointer input on the display: from the `IDLETIME` alarm (zero until the display
    /// has gone `idleResolution` without input), else asked of MIT-SCREEN-SAVER; nil without either.
    public func idleTime() -> Duration? {
        if idleAlarm != nil {
            let now = ContinuousClock.now
            return state.withLock { $0.idle.idleTime(at: now) }
        }
        let idle = connection.idleTime()
        // The reply may have pulled pending events into libxcb's queue, which poll(2) no longer sees.
        thread.wakeup.signal()
        return idle
    }

    /// How many focus events the source has received and acted on.
    public var statistics: FocusSourceStatistics { state.withLock { $0.statistics } }

    /// Stops the event thread and waits for it to end. Idempotent.
    public func close() { thread.stop() }

    private func runEventLoop() {
        var pendingNoWindowSince: ContinuousClock.Instant?
        var recheckAt: ContinuousClock.Instant?
        loop: while true {
            var activeWindowChanged = false
            while let event = connection.nextEvent() {
                switch event {
                case .propertyChanged(let window, let atom)
                where window == connection.root && atom == connection.activeWindowAtom:
                    activeWindowChanged = true
                    state.withLock { $0.statistics.eventsReceived += 1 }
                case .idleAlarm(let alarm, let idleTime) where alarm == idleAlarm?.alarm:
                    followIdle(idleTime)
                default:
                    break
                }
            }
            if thread.isStopping { break loop }
            if connection.hasFailed { break loop }
            let now = ContinuousClock.now
            if let at = recheckAt, at <= now {
                recheckAt = nil
                activeWindowChanged = true
            }
            if activeWindowChanged {
                let (window, disagreed) = readActiveWindow()
                // A window manager may name the window it focuses a moment before the focus moves: look again.
                if disagreed { recheckAt = now + .milliseconds(100) }
                state.withLock { $0.statistics.queries += 1 }
                if let window {
                    pendingNoWindowSince = nil
                    publish(window)
                } else if pendingNoWindowSince == nil {
                    pendingNoWindowSince = now
                }
                // The replies may have queued more events: look at the queue again before blocking.
                continue loop
            }
            var timeout = recheckAt.map { $0 - now }
            if let since = pendingNoWindowSince {
                let remaining = debounce - (now - since)
                if remaining <= .zero {
                    pendingNoWindowSince = nil
                    publish(nil)
                    continue loop
                }
                timeout = min(timeout ?? remaining, remaining)
            }
            do {
                let ready = try Readiness.wait(
                    for: [connection.fileDescriptor, thread.wakeup.fileDescriptor], timeout: timeout)
                if ready[1] { thread.wakeup.drain() }
            } catch {
                break loop
            }
        }
        state.withLock { $0.connected = false }
    }

    /// The `IDLETIME` alarm fired with the counter at `idleTime`: the display has gone the resolution without input, or
    /// input came; the alarm is armed for the other.
    private func followIdle(_ idleTime: Duration) {
        guard let idleAlarm else { return }
        let isIdle = idleTime >= idleAlarm.threshold
        let now = ContinuousClock.now
        state.withLock { $0.idle = MeasuredIdle(since: isIdle ? now - idleTime : nil) }
        idleAlarm.arm(whenIdle: !isIdle)
    }

    private func publish(_ window: FocusedWindow?) {
        state.withLock { state in
            guard state.window != window else { return }
            state.window = window
            state.statistics.changesPublished += 1
        }
    }

    /// The active window described, or nil when there is none or it vanished before it could be read; and whether
    /// `_NET_ACTIVE_WINDOW` named another window than the one that holds the keyboard focus, or none while a managed
    /// window holds it, with `followsKeyboardFocus` (then the client that holds it is described: the managed window
    /// above the focus, else its top-level window).
    private func readActiveWindow() -> (window: FocusedWindow?, disagreed: Bool) {
        let named = connection.activeWindow()
        var chosen = named
        var disagreed = false
        if followsKeyboardFocus, let focus = connection.inputFocus() {
            let focused = connection.ancestry(of: focus)
            // Consistent: the focus is in the named window, or on its frame.
            let consistent = named.map { focused.contains($0) || connection.ancestry(of: $0).contains(focus) } ?? false
            let client = focused.first(where: connection.isClientWindow)
            if !consistent, let top = focused.last, named != nil || client != nil {
                disagreed = true
                chosen = client ?? top
            }
        }
        guard let window = chosen else { return (nil, false) }
        let windowClass = connection.windowClass(of: window)
        var pid = connection.clientProcessID(of: window)
        if pid == nil, display.isLocal, isLocalMachine(connection.clientMachine(of: window)) {
            pid = connection.claimedProcessID(of: window)
        }
        let className = windowClass.map { $0.className.isEmpty ? $0.instance : $0.className }
        guard pid != nil || className != nil else { return (nil, disagreed) }
        let described = FocusedWindow(
            pid: pid.map { ProcessID($0) }, windowClass: className?.isEmpty == false ? className : nil)
        return (described, disagreed)
    }

    private func isLocalMachine(_ machine: String?) -> Bool {
        guard let machine, !machine.isEmpty else { return true }
        let hostname = ProcessInfo.processInfo.hostName
        return machine == hostname || machine == hostname.split(separator: ".").first.map(String.init)
    }
}
