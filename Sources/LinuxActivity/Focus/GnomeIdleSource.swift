import ScreenTimeModel

/// The idle time of a GNOME session, from Mutter's idle monitor, for a guardian's limited user whose GNOME Shell
/// can't be believed for its focus (the extension not enabled, or one of their own running): it sees no window
/// (every app of the session counts), but a locked or left screen's idle time still grows past the idle timeout —
/// logind's hints, which the user may set, count for nothing there.
///
/// Only an idle monitor owned by the connection of `org.gnome.Shell`, itself a `gnome-shell` only root can change, is
/// asked, by that connection's unique name (`MutterIdleMonitor`). It is read at each `current()`, on the collector's
/// thread.
public final class GnomeIdleSource: FocusSource, @unchecked Sendable {
    // Invariant: `monitor`'s bus is used by the one thread that calls `current()` and `close()` (the collector's).
    /// `gnome-shell idle monitor`.
    public let name = "gnome-shell idle monitor"
    private let monitor: MutterIdleMonitor
    private var closed = false

    /// Connects to the session bus at `busAddress` and checks who serves the idle monitor.
    public init(busAddress: String) throws(FocusSourceError) {
        let bus = try UserSessionBus.connect(address: busAddress)
        guard let shell = bus.nameOwner("org.gnome.Shell", timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(.noSourceForSession, "no GNOME Shell on the session bus at \(busAddress)")
        }
        try FocusServer.checkConnection(shell, owning: "org.gnome.Shell", on: bus, runs: ["gnome-shell"])
        guard bus.nameOwner("org.gnome.Mutter.IdleMonitor", timeout: UserSessionBus.callTimeout) == shell else {
            throw FocusSourceError(.unsupported, "org.gnome.Mutter.IdleMonitor is not GNOME Shell's")
        }
        monitor = MutterIdleMonitor(bus: bus, shell: shell)
        guard monitor.idleTime() != nil else {
            throw FocusSourceError(.unsupported, "GNOME Shell's idle monitor does not answer")
        }
    }

    /// No window, and the idle time now; nil once the monitor stops answering or the source is closed.
    public func current() -> FocusReading? {
        guard !closed, let idle = monitor.idleTime() else { return nil }
        return FocusReading(window: nil, idleTime: idle, seesFocus: false)
    }

    /// Stops asking. Idempotent.
    public func close() { closed = true }
}
