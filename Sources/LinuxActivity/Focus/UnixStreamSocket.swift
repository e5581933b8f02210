import Glibc
import ScreenTimeModel
import SystemPackage

/// Connecting to a Unix stream socket that a session names (sway's IPC, a Wayland display), with timeouts: the
/// socket may be served by anything, and no thread of the collector may hang on it.
enum UnixStreamSocket {
    /// Connects to the socket at `path` and returns the descriptor, which the caller closes. Sending (and, for a
    /// Unix socket, connecting to a listener whose backlog is full) and receiving each wait at most `timeout`
    /// seconds. `serving` names what the socket is for, in errors (`sway`, `the Wayland display`).
    ///
    /// The corresponding C functions are `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`, `setsockopt` and `connect`.
    static func connect(to path: String, timeout: Int, serving: String) throws(FocusSourceError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw FocusSourceError(.connectionFailed, "cannot create a socket", underlying: Errno(rawValue: errno))
        }
        setTimeout(descriptor, SO_SNDTIMEO, seconds: timeout)
        setTimeout(descriptor, SO_RCVTIMEO, seconds: timeout)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            throw FocusSourceError(.connectionFailed, "\(serving) socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = Errno(rawValue: errno)
            Glibc.close(descriptor)
            throw FocusSourceError(.connectionFailed, "cannot connect to \(serving) at \(path)", underlying: error)
        }
        return descriptor
    }

    private static func setTimeout(_ descriptor: Int32, _ option: Int32, seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, option, &time, socklen_t(MemoryLayout<timeval>.size))
    }
}
