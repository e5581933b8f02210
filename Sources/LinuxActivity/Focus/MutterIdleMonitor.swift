import ScreenTimeModel
import Synchronization

/// Mutter's idle monitor (`org.gnome.Mutter.IdleMonitor` at `/org/gnome/Mutter/IdleMonitor/Core`) of GNOME Shell's
/// connection `shell` on `bus`.
///
/// It is asked by that connection's unique name, never by the well-known one: Mutter lets another connection take
/// the name over (`ALLOW_REPLACEMENT`), and a program of the user's that did could answer with any idle time.
struct MutterIdleMonitor {
    static let path = "/org/gnome/Mutter/IdleMonitor/Core"
    static let interface = "org.gnome.Mutter.IdleMonitor"

    let bus: Bus
    /// GNOME Shell's unique connection name, checked as a `gnome-shell` only root can change.
    let shell: String

    /// The match rule of `WatchFired(u id)`, sent when a watch fires.
    var watchFiredRule: String {
        "type='signal',sender='\(shell)',interface='\(Self.interface)',member='WatchFired',path='\(Self.path)'"
    }

    /// The time since the last input (`GetIdletime`, milliseconds); nil when the monitor does not answer.
    func idleTime() -> Duration? {
        guard let milliseconds = try? call("GetIdletime").readUnsigned() else { return nil }
        return .milliseconds(Int64(clamping: milliseconds))
    }

    /// Asks for `WatchFired` each time the seat has gone `interval` without input (`AddIdleWatch`); the watch's id.
    func addIdleWatch(after interval: Duration) -> UInt32? {
        let milliseconds = UInt64(clamping: max(1, interval.wholeMilliseconds))
        return (try? call("AddIdleWatch", [.uint64(milliseconds)]).readUnsigned()).map {
            UInt32(truncatingIfNeeded: $0)
        }
    }

    /// Asks for one `WatchFired` at the next input (`AddUserActiveWatch`; Mutter drops the watch once it fires); the
    /// watch's id.
    func addUserActiveWatch() -> UInt32? {
        (try? call("AddUserActiveWatch").readUnsigned()).map { UInt32(truncatingIfNeeded: $0) }
    }

    private func call(_ member: String, _ arguments: [BusValue] = []) throws(LinuxActivityError) -> BusMessage {
        try bus.call(
            destination: shell, path: Self.path, interface: Self.interface, member: member, arguments: arguments,
            timeout: UserSessionBus.callTimeout)
    }
}

/// The seat's idleness from Mutter's watches on one GNOME Shell connection: an idle watch fires each time the seat
/// has gone `resolution` without input, and then the idle time is read (`GetIdletime`) and one more watch asked for
/// the next input (`AddUserActiveWatch`). In between nothing is asked — GNOME Shell is not woken every second — and the
/// idle time is zero while the seat has had input within `resolution`.
///
/// `WatchFired` arrives on the bus like any signal: the owner dispatches the bus on a thread of its own
/// (`BusEventLoop`), which runs `watchFired`, while `idleTime(at:)` may be read from any thread.
final class MutterIdleWatches: Sendable {
    private let monitor: MutterIdleMonitor
    private let resolution: Duration
    private let state = Mutex(State())

    private struct State {
        /// What the watches say; nil when they can't be followed.
        var idle: MeasuredIdle?
        var idleWatch: UInt32?
        /// The watch that fires at the next input, while the seat is idle.
        var activeWatch: UInt32?
    }

    /// Follows `WatchFired` on the monitor's bus and adds the idle watch. When Mutter doesn't add it, the idle time is
    /// not measured (`idleTime(at:)` is nil).
    init(monitor: MutterIdleMonitor, resolution: Duration) throws(FocusSourceError) {
        self.monitor = monitor
        self.resolution = resolution
        try FocusSourceError.onBus { () throws(LinuxActivityError) in
            // Before the watch is added, so that no firing is missed.
            try monitor.bus.addMatch(monitor.watchFiredRule) { [weak self] message in
                guard let self, let id = message.readUnsigned() else { return }
                watchFired(UInt32(truncatingIfNeeded: id))
            }
        }
        let idleWatch = monitor.addIdleWatch(after: resolution)
        state.withLock {
            $0.idleWatch = idleWatch
            $0.idle = idleWatch.map { _ in MeasuredIdle() }
        }
        if let idleTime = monitor.idleTime(), idleTime >= resolution { becameIdle() }
    }

    /// The idle time at `now` (zero while the seat has had input within the resolution); nil when not measured.
    func idleTime(at now: ContinuousClock.Instant) -> Duration? { state.withLock { $0.idle?.idleTime(at: now) } }

    /// A watch fired: the idle watch (the seat has gone the resolution without input) or the one for the next input.
    private func watchFired(_ id: UInt32) {
        let (idleWatch, activeWatch) = state.withLock { ($0.idleWatch, $0.activeWatch) }
        if id == idleWatch {
            becameIdle()
        } else if id == activeWatch {
            state.withLock {
                $0.activeWatch = nil
                if $0.idle != nil { $0.idle = MeasuredIdle() }
            }
        }
    }

    /// The seat has gone the resolution without input: asks to hear of the next input (unless that is asked already),
    /// then reads since when it has been idle. When Mutter doesn't answer, the idle time is no longer measured (it
    /// could never end).
    private func becameIdle() {
        let activeWatch = state.withLock { $0.activeWatch } ?? monitor.addUserActiveWatch()
        let idleTime = activeWatch == nil ? nil : monitor.idleTime()
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.idle != nil, let activeWatch, let idleTime else {
                state.idle = nil
                return
            }
            state.activeWatch = activeWatch
            // Input came between the firing and the watch: that watch fires at the input after, and the idle watch
            // again once that input is the resolution old.
            state.idle = MeasuredIdle(since: idleTime >= resolution ? now - idleTime : nil)
        }
    }
}
