import ScreenTimeModel

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
        let (seconds, attoseconds) = interval.components
        let milliseconds = UInt64(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
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
