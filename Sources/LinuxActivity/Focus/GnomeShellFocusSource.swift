import FoundationEssentials
import ScreenTimeModel
import Synchronization

/// Focus and idle time of a GNOME Shell session (Wayland or X11), from the Screen Time GNOME Shell extension
/// (`packaging/gnome-shell-extension`) and Mutter's idle monitor.
///
/// The extension owns `org.screentime.Focus` on the session bus inside the gnome-shell process, answers
/// `GetFocus() → (u pid, s app_id, s wm_class)` and emits `FocusChanged(u, s, s)` when the focused window
/// changes. The source reads it once, then follows the signal on its own thread. Idle time comes from Mutter's
/// idle monitor through its watches (`MutterIdleWatches`), which that thread follows too: nothing is asked while a
/// person types or reads, and the idle time is zero while the seat has had input within `idleResolution`.
///
/// Only a `org.screentime.Focus` owned by the same connection as `org.gnome.Shell`, itself owned by a `gnome-shell`
/// only root can change, is believed: any other program of the user could own the names and report a window of its
/// choice.
public final class GnomeShellFocusSource: FocusSource {
    /// `gnome-shell`.
    public let name = "gnome-shell"
    /// The extension's UUID, shown in messages telling how to enable it.
    public static let extensionUUID = "screentime-focus@screentime.org"
    static let busName = "org.screentime.Focus"
    static let objectPath = "/org/screentime/Focus"

    private let bus: Bus
    private let idleWatches: MutterIdleWatches
    private let state = Mutex(State())
    private let thread: EventThread

    private struct State {
        var window: FocusedWindow?
        var connected = true
        var statistics = FocusSourceStatistics()
    }

    /// Connects to the session bus at `busAddress`, checks that GNOME Shell runs the extension, reads the focus
    /// and starts following `FocusChanged`.
    ///
    /// Without `allowsUsersExtensions` (a guardian's limited user's session), GNOME Shell is believed only while it
    /// runs none of the user's own extensions: every extension runs inside the shell, and one of theirs (a copy of
    /// this one, which GNOME loads instead of the system's, or one that patches the shell) could report any window.
    /// Installed but not enabled, theirs are no matter; enabling one ends the source (`current()` turns nil).
    public init(
        busAddress: String, idleResolution: Duration = .seconds(5), allowsUsersExtensions: Bool = true
    ) throws(FocusSourceError) {
        let bus = try UserSessionBus.connect(address: busAddress)
        self.bus = bus
        guard let shell = bus.nameOwner("org.gnome.Shell", timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(.noSourceForSession, "no GNOME Shell on the session bus at \(busAddress)")
        }
        guard let owner = bus.nameOwner(Self.busName, timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(
                .integrationMissing,
                "GNOME Shell runs but the Screen Time extension is not enabled "
                    + "(gnome-extensions enable \(Self.extensionUUID), then log in again)")
        }
        guard owner == shell else {
            throw FocusSourceError(
                .protocolViolation, "\(Self.busName) is owned by \(owner), not by GNOME Shell (\(shell)); not trusted")
        }
        // And the name's owner is GNOME Shell: a program of the user's could own both names where it doesn't run.
        try FocusServer.checkConnection(shell, owning: "org.gnome.Shell", on: bus, runs: ["gnome-shell"])
        let monitor = MutterIdleMonitor(bus: bus, shell: shell)
        if !allowsUsersExtensions {
            let reply = try FocusSourceError.onBus { () throws(LinuxActivityError) in
                try bus.call(
                    destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: Self.extensionsInterface,
                    member: "ListExtensions", timeout: UserSessionBus.callTimeout)
            }
            var own: [String] = []
            if case .array(_, let extensions)? = reply.readAll().first {
                for case .dictionaryEntry(.string(let uuid), let properties) in extensions
                where Self.isUsersOwnAndEnabled(properties) {
                    own.append(uuid)
                }
            }
            guard own.isEmpty else {
                throw FocusSourceError(
                    .unsupported,
                    "GNOME Shell runs extensions of the user's own (\(own.sorted().joined(separator: ", "))), which "
                        + "could make it report any window: a guardian's limited user's focus is read only while the "
                        + "system's extensions alone run (lock org.gnome.shell disable-user-extensions with dconf)")
            }
        }
        thread = try EventThread.forFocusSource()
        let reply = try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try bus.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.busName, member: "GetFocus",
                timeout: UserSessionBus.callTimeout)
        }
        let window = Self.window(from: reply)
        state.withLock {
            $0.window = window
            $0.statistics.queries = 1
        }
        idleWatches = try MutterIdleWatches(monitor: monitor, resolution: idleResolution)
        try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try bus.addMatch(
                "type='signal',sender='\(owner)',interface='\(Self.busName)',member='FocusChanged',"
                    + "path='\(Self.objectPath)'"
            ) { [weak self] message in
                guard let self else { return }
                let window = Self.window(from: message)
                state.withLock { state in
                    state.statistics.eventsReceived += 1
                    guard state.window != window else { return }
                    state.window = window
                    state.statistics.changesPublished += 1
                }
            }
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.busName)'"
            ) { [weak self] _ in
                // The extension was disabled or GNOME Shell restarted: the collector reopens the source later.
                self?.state.withLock { $0.connected = false }
            }
            if !allowsUsersExtensions {
                try bus.addMatch(
                    "type='signal',sender='\(shell)',interface='\(Self.extensionsInterface)',"
                        + "member='ExtensionStateChanged'"
                ) { [weak self] message in
                    // An extension of the user's own enabled: the collector reopens the source, which refuses.
                    let arguments = message.readAll()
                    guard arguments.count == 2, Self.isUsersOwnAndEnabled(arguments[1]) else { return }
                    self?.state.withLock { $0.connected = false }
                }
            }
        }
        thread.start(name: "screentime-gnome-focus") { [self] in runEventLoop() }
    }

    /// The latest focused window and idle time (zero while the seat has had input within `idleResolution`; nil when
    /// Mutter's watches can't be followed); nil once the bus, the shell or the extension is gone.
    public func current() -> FocusReading? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.connected, !thread.isStopping else { return nil }
            return FocusReading(window: state.window, idleTime: idleWatches.idleTime(at: now))
        }
    }

    /// How many `FocusChanged` signals the source has received and acted on.
    public var statistics: FocusSourceStatistics { state.withLock { $0.statistics } }

    /// Stops the event thread and waits for it to end. Idempotent.
    public func close() { thread.stop() }

    private func runEventLoop() {
        BusEventLoop.run(
            bus: bus, on: thread, refreshEvery: nil, keepRunning: { state.withLock { $0.connected } }, refresh: {})
        state.withLock { $0.connected = false }
    }

    static let extensionsInterface = "org.gnome.Shell.Extensions"

    /// Whether an extension's properties (the `a{sv}` of `org.gnome.Shell.Extensions`, whose numbers are doubles)
    /// say it is the user's own (`type` 2, not the system's 1) and enabled or being enabled (`state` 1 or 8).
    static func isUsersOwnAndEnabled(_ properties: BusValue) -> Bool {
        guard case .array(_, let entries) = properties else { return false }
        var type: Double?
        var state: Double?
        for case .dictionaryEntry(.string(let key), .variant(.double(let number))) in entries {
            if key == "type" { type = number } else if key == "state" { state = number }
        }
        return type == 2 && (state == 1 || state == 8)
    }

    /// `(u pid, s app_id, s wm_class)` as a window; pid 0 and empty strings mean "unknown", all empty "none".
    private static func window(from message: BusMessage) -> FocusedWindow? {
        let pid = message.readUnsigned() ?? 0
        let appID = message.readString() ?? ""
        let windowClass = message.readString() ?? ""
        guard pid != 0 || !appID.isEmpty || !windowClass.isEmpty else { return nil }
        return FocusedWindow(
            pid: pid > 0 && pid <= UInt64(Int32.max) ? ProcessID(Int32(pid)) : nil,
            windowClass: windowClass.isEmpty ? nil : windowClass, desktopEntryID: appID.isEmpty ? nil : appID)
    }
}
