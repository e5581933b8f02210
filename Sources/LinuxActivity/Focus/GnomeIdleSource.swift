import ScreenTimeModel
import Synchronization

/// The idle time of a GNOME session, from Mutter's idle monitor, for a guardian's limited user whose GNOME Shell
/// can't be believed for its focus (the extension not enabled, or one of their own running): it sees no window
/// (every app of the session counts), but a locked or left screen's idle time still grows past the idle timeout —
/// logind's hints, which the user may set, count for nothing there.
///
/// Only an idle monitor owned by the connection of `org.gnome.Shell`, itself a `gnome-shell` only root can change, is
/// asked, by that connection's unique name, through its watches (`MutterIdleWatches`), which a thread of the source's
/// follows.
public final class GnomeIdleSource: FocusSource {
    /// `gnome-shell idle monitor`.
    public let name = "gnome-shell idle monitor"
    private let bus: Bus
    private let idleWatches: MutterIdleWatches
    private let connected = Atomic(true)
    private let thread: EventThread

    /// Connects to the session bus at `busAddress`, checks who serves the idle monitor and starts following its
    /// watches; `idleResolution` is how long without input before the idle time is told.
    public init(busAddress: String, idleResolution: Duration = .seconds(5)) throws(FocusSourceError) {
        let bus = try UserSessionBus.connect(address: busAddress)
        guard let shell = bus.nameOwner("org.gnome.Shell", timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(.noSourceForSession, "no GNOME Shell on the session bus at \(busAddress)")
        }
        try FocusServer.checkConnection(shell, owning: "org.gnome.Shell", on: bus, runs: ["gnome-shell"])
        guard bus.nameOwner("org.gnome.Mutter.IdleMonitor", timeout: UserSessionBus.callTimeout) == shell else {
            throw FocusSourceError(.unsupported, "org.gnome.Mutter.IdleMonitor is not GNOME Shell's")
        }
        let monitor = MutterIdleMonitor(bus: bus, shell: shell)
        guard monitor.idleTime() != nil else {
            throw FocusSourceError(.unsupported, "GNOME Shell's idle monitor does not answer")
        }
        self.bus = bus
        idleWatches = try MutterIdleWatches(monitor: monitor, resolution: idleResolution)
        thread = try EventThread.forFocusSource()
        try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.gnome.Shell'"
            ) { [weak self] _ in
                // GNOME Shell restarted or ended: the collector reopens the source later.
                self?.connected.store(false, ordering: .relaxed)
            }
        }
        thread.start(name: "screentime-gnome-idle") { [self] in
            BusEventLoop.run(
                bus: bus, on: thread, refreshEvery: nil, keepRunning: { connected.load(ordering: .relaxed) },
                refresh: {})
            connected.store(false, ordering: .relaxed)
        }
    }

    /// No window, and the idle time (zero while the seat has had input within the resolution); nil once GNOME Shell
    /// or the bus is gone, the watches can't be followed, or the source is closed.
    public func current() -> FocusReading? {
        guard connected.load(ordering: .relaxed), !thread.isStopping,
            let idle = idleWatches.idleTime(at: .now)
        else { return nil }
        return FocusReading(window: nil, idleTime: idle, seesFocus: false)
    }

    /// Stops the thread and waits for it to end. Idempotent.
    public func close() { thread.stop() }
}
