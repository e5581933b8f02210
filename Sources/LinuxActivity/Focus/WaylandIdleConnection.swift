import CLinux
import CWayland
import FoundationEssentials
import Glibc
import ScreenTimeModel
import SystemPackage

/// How long a Wayland compositor's seat has gone without input, from the compositor's own idle notifications
/// (`ext_idle_notifier_v1`, else KDE's `org_kde_kwin_idle`, which sway 1.7–1.9 offer): the compositor says when the
/// seat has had no input for `resolution`, and again at the next input. An idle inhibitor (a playing video) holds
/// the first back with `ext_idle_notifier_v1`, and with sway's `org_kde_kwin_idle`.
///
/// The display's socket is in the user's runtime folder, whose names the user picks: one is believed only when the
/// process serving it is one of `servers`, already checked for what they are (the session's own sway; KWin and its
/// `kwin_wayland_wrapper`, which makes the socket and hands it to KWin).
final class WaylandIdleConnection: @unchecked Sendable {
    // Invariant: the handle and `since` are used by one thread at a time: the opener's, then the source's event
    // thread, which closes the connection by dropping this object.
    private let handle: OpaquePointer
    private var since: ContinuousClock.Instant?
    /// How long the seat goes without input before the compositor says it is idle.
    let resolution: Duration
    /// The protocol the compositor offered: `ext_idle_notifier_v1` or `org_kde_kwin_idle`.
    let protocolName: String
    /// The socket this connection reached.
    let socketPath: String

    /// How long connecting and the first answer may take.
    static let timeout = 2

    /// Connects to the first of `socketPaths` that one of `servers` serves and asks to be told once the seat has had
    /// no input for `resolution`.
    ///
    /// The corresponding C functions are `connect` (`UnixStreamSocket.connect`), `getsockopt(SO_PEERCRED)`
    /// (`clinux_socket_peer_pid`) and, for the protocol, `cwayland_idle_open` (libwayland-client).
    init(socketPaths: [String], servers: Set<ProcessID>, resolution: Duration) throws(FocusSourceError) {
        var reasons: [String] = []
        for path in socketPaths {
            let descriptor: Int32
            do {
                descriptor = try UnixStreamSocket.connect(to: path, timeout: Self.timeout, serving: "Wayland display")
            } catch {
                reasons.append("\(error)")
                continue
            }
            let server = clinux_socket_peer_pid(descriptor)
            guard servers.contains(ProcessID(server)) else {
                Glibc.close(descriptor)
                let compositor = servers.map { "\($0.rawValue)" }.sorted().joined(separator: " or ")
                reasons.append("\(path) is served by process \(server), not by the compositor (process \(compositor))")
                continue
            }
            var failure: Int32 = 0
            guard
                let handle = cwayland_idle_open(
                    descriptor, UInt32(clamping: max(1, resolution.wholeMilliseconds)), Int32(Self.timeout * 1000),
                    &failure)
            else {
                let error = Errno(rawValue: errno)
                switch failure {
                case Int32(CWAYLAND_IDLE_NO_SEAT.rawValue):
                    throw FocusSourceError(.unsupported, "the compositor at \(path) has no seat")
                case Int32(CWAYLAND_IDLE_NO_PROTOCOL.rawValue):
                    throw FocusSourceError(
                        .unsupported,
                        "the compositor at \(path) offers neither ext_idle_notifier_v1 nor org_kde_kwin_idle")
                default:
                    throw FocusSourceError(
                        .connectionFailed, "the Wayland display at \(path) did not answer", underlying: error)
                }
            }
            self.handle = handle
            self.socketPath = path
            self.resolution = resolution
            protocolName = String(cString: cwayland_idle_protocol(handle))
            return
        }
        throw FocusSourceError(
            .noSourceForSession,
            reasons.isEmpty ? "no Wayland display socket" : reasons.joined(separator: "; "))
    }

    deinit {
        cwayland_idle_close(handle)
    }

    /// The connection's descriptor, to wait on beside others.
    var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: cwayland_idle_fd(handle)) }

    /// Reads what the compositor sent, without blocking (call when the descriptor is readable), and returns what it
    /// says of the seat now.
    ///
    /// The corresponding C function is `cwayland_idle_dispatch` (libwayland-client's `wl_display_read_events`).
    func read(at now: ContinuousClock.Instant = .now) throws(FocusSourceError) -> MeasuredIdle {
        guard cwayland_idle_dispatch(handle) == 0 else {
            throw FocusSourceError(
                .connectionFailed, "lost the Wayland display at \(socketPath)", underlying: Errno(rawValue: errno))
        }
        let isIdle = cwayland_idle_is_idle(handle)
        if isIdle != (since != nil) {
            // The compositor says the seat is idle once it has had no input for the resolution.
            since = isIdle ? now - resolution : nil
        }
        return MeasuredIdle(since: since)
    }

    /// `init(socketPaths:servers:resolution:)` with the sockets of `runtimeDirectory` (`socketPaths(in:display:)`), or
    /// why it failed, for a source that goes on without idle time.
    static func open(
        in runtimeDirectory: String, display: String?, servers: Set<ProcessID>, resolution: Duration
    ) -> (connection: WaylandIdleConnection?, unavailable: String?) {
        do {
            return (
                try WaylandIdleConnection(
                    socketPaths: socketPaths(in: runtimeDirectory, display: display), servers: servers,
                    resolution: resolution),
                nil
            )
        } catch {
            return (nil, "\(error)")
        }
    }

    /// The Wayland display sockets to try in `runtimeDirectory`: `display` first (`WAYLAND_DISPLAY`, a name there or
    /// an absolute path), then each `wayland-*` socket (libwayland's names; not their `.lock` files).
    static func socketPaths(in runtimeDirectory: String, display: String?) -> [String] {
        var paths: [String] = []
        if let display, !display.isEmpty {
            paths.append(display.hasPrefix("/") ? display : runtimeDirectory + "/" + display)
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []
        for name in names.sorted() where name.hasPrefix("wayland-") && !name.hasSuffix(".lock") {
            let path = runtimeDirectory + "/" + name
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }
}
