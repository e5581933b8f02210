import CSystemd
import Glibc
import ScreenTimeModel
import SystemPackage

/// sd-login(3), each function wrapped once. Getters return nil when logind doesn't know the field (`-ENODATA`,
/// `-ENXIO`), which is normal for seatless or display-less sessions.
enum SDLogin {
    /// Whether systemd runs as init (`sd_booted(3)`) and logind's runtime state exists (`/run/systemd/seats`).
    static var isAvailable: Bool { sd_booted() > 0 && access("/run/systemd/seats/", F_OK) == 0 }

    /// The ids of all current sessions. The C function is `sd_get_sessions(3)`.
    static func sessions() throws(LinuxActivityError) -> [SessionID] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_get_sessions(&list)
        guard count >= 0 else {
            throw LinuxActivityError(.logind, "sd_get_sessions failed", errno: Errno(systemdResult: count))
        }
        defer { free(list) }
        var result: [SessionID] = []
        for index in 0..<Int(count) {
            guard let entry = list?[index] else { continue }
            result.append(SessionID(String(cString: entry)))
            free(entry)
        }
        return result
    }

    /// Calls an sd-login getter that returns a malloc'd string.
    private static func string(
        _ session: SessionID, _ getter: (UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32
    ) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        let result = session.rawValue.withCString { getter($0, &value) }
        guard result >= 0, let value else { return nil }
        defer { free(value) }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// `sd_session_get_uid(3)`.
    static func user(of session: SessionID) -> UserID? {
        var uid: uid_t = 0
        let result = session.rawValue.withCString { sd_session_get_uid($0, &uid) }
        return result >= 0 ? UserID(uid) : nil
    }
    /// `sd_session_get_class(3)`.
    static func sessionClass(of session: SessionID) -> String? { string(session) { sd_session_get_class($0, $1) } }
    /// `sd_session_get_type(3)`.
    static func type(of session: SessionID) -> String? { string(session) { sd_session_get_type($0, $1) } }
    /// `sd_session_get_state(3)`.
    static func state(of session: SessionID) -> String? { string(session) { sd_session_get_state($0, $1) } }
    /// `sd_session_get_seat(3)`.
    static func seat(of session: SessionID) -> String? { string(session) { sd_session_get_seat($0, $1) } }
    /// `sd_session_get_tty(3)`.
    static func tty(of session: SessionID) -> String? { string(session) { sd_session_get_tty($0, $1) } }
    /// `sd_session_get_display(3)`.
    static func display(of session: SessionID) -> String? { string(session) { sd_session_get_display($0, $1) } }
    /// `sd_session_get_desktop(3)`.
    static func desktop(of session: SessionID) -> String? { string(session) { sd_session_get_desktop($0, $1) } }
    /// `sd_session_is_remote(3)`.
    static func isRemote(_ session: SessionID) -> Bool { session.rawValue.withCString { sd_session_is_remote($0) } > 0 }
    /// `sd_session_is_active(3)`.
    static func isActive(_ session: SessionID) -> Bool { session.rawValue.withCString { sd_session_is_active($0) } > 0 }
}

/// A change monitor over logind's sessions (`sd_login_monitor(3)`): its descriptor becomes readable when sessions
/// or seats come, go or change state.
final class LoginMonitor {
    private let monitor: OpaquePointer

    /// The C function is `sd_login_monitor_new(3)` for all categories.
    init() throws(LinuxActivityError) {
        var monitor: OpaquePointer?
        let result = sd_login_monitor_new(nil, &monitor)
        guard result >= 0, let monitor else {
            throw LinuxActivityError(.logind, "sd_login_monitor_new failed", errno: Errno(systemdResult: result))
        }
        self.monitor = monitor
    }

    deinit { sd_login_monitor_unref(monitor) }

    /// Whether anything changed since the last call; resets the monitor. Never blocks.
    func takeChanges() -> Bool {
        var descriptor = pollfd(fd: sd_login_monitor_get_fd(monitor), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        sd_login_monitor_flush(monitor)
        return true
    }
}
