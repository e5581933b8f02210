import CSystemd
import Glibc
import SystemPackage

/// Tells the service manager about the daemon's state over `$NOTIFY_SOCKET` (sd_notify(3)), and reads the watchdog
/// interval it asks for.
///
/// Every call returns `false` when the daemon is not run by systemd (no `$NOTIFY_SOCKET`), so the daemon calls them
/// unconditionally. The environment is left in place for the daemon's own later calls.
public struct SystemdNotifier: Sendable {
    /// Creates a notifier.
    public init() {}

    /// Sends `state`, newline-separated `KEY=VALUE` assignments. Returns whether it was sent (`false`: no
    /// `$NOTIFY_SOCKET`).
    ///
    /// The C function is `sd_notify(3)`.
    @discardableResult
    public func send(_ state: String) throws(DaemonServiceError) -> Bool {
        let result = sd_notify(0, state)
        guard result >= 0 else {
            let first = state.split(separator: "\n").first.map(String.init) ?? state
            throw DaemonServiceError(
                .notifyFailed, "cannot tell the service manager \(first)", errno: Errno(negatedResult: result))
        }
        return result > 0
    }

    /// `READY=1`: start-up finished (a `Type=notify` unit becomes active).
    @discardableResult
    public func ready() throws(DaemonServiceError) -> Bool { try send("READY=1") }

    /// `STATUS=…`: one line for `systemctl status`. Newlines in `text` are replaced by spaces.
    @discardableResult
    public func status(_ text: String) throws(DaemonServiceError) -> Bool {
        try send("STATUS=" + String(text.map { $0.isNewline ? " " : $0 }))
    }

    /// `STOPPING=1`: shutdown began.
    @discardableResult
    public func stopping() throws(DaemonServiceError) -> Bool { try send("STOPPING=1") }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (`CLOCK_MONOTONIC` now, in microseconds), which `Type=notify-reload`
    /// of systemd 253 and later requires to match the reload to its request; older systemd ignores the extra field.
    /// Send `ready()` when the reload is done.
    @discardableResult
    public func reloading() throws(DaemonServiceError) -> Bool {
        try send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
    }

    /// `WATCHDOG=1`: the daemon is alive; due every `watchdogInterval()`.
    @discardableResult
    public func watchdog() throws(DaemonServiceError) -> Bool { try send("WATCHDOG=1") }

    /// The interval within which systemd expects `watchdog()` (`WatchdogSec=`), or nil when no watchdog is asked for
    /// or it is meant for another process (`$WATCHDOG_PID`).
    ///
    /// The C function is `sd_watchdog_enabled(3)`.
    public func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(microseconds)
    }

    /// `CLOCK_MONOTONIC` in microseconds.
    ///
    /// The C function is `clock_gettime(2)`.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
