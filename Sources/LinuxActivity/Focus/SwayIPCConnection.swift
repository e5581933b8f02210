import CLinux
import Glibc
import ScreenTimeModel
import SystemPackage

/// A client connection to sway's IPC socket (the i3 IPC protocol): `"i3-ipc"`, payload length and message type
/// as native-endian 32-bit integers, then a JSON payload. Each libc call is wrapped here once.
final class SwayIPCConnection: @unchecked Sendable {
    // Invariant: the descriptor is owned by this object and used by one thread at a time (the source's event
    // thread); `shutdown()` may be called from another thread to end a blocked read.
    /// The connected socket.
    let fileDescriptor: FileDescriptor
    /// The sway process that serves the socket, checked as the system's (and the session's own, when asked).
    let server: ProcessID

    /// Message types of requests, and of the replies that echo them.
    enum MessageType: UInt32 {
        case runCommand = 0
        case subscribe = 2
        case getTree = 4
        case getVersion = 7
    }

    /// Event types have the high bit set; `window` is event 3.
    static let windowEvent: UInt32 = 0x8000_0003
    /// The `workspace` event (focus moved to another, possibly empty, workspace).
    static let workspaceEvent: UInt32 = 0x8000_0000
    /// The `shutdown` event (sway is exiting).
    static let shutdownEvent: UInt32 = 0x8000_0006

    private static let magic = Array("i3-ipc".utf8)

    /// How long connecting, and each send and each read of a message, may take: a socket the session names may be
    /// served by anything, and neither the collector's thread (which opens the source) nor the event thread (which
    /// reads a message once `poll` says one has begun) may hang on it.
    static let timeout = 2

    /// Connects to the socket at `path`, served by the system's sway (`checkPeer`) — and, with `session`, by the
    /// compositor of that logind session (a guardian's limited user's: `FocusServer.checkIsSessionsOwn`).
    ///
    /// The corresponding C function is `connect` (`UnixStreamSocket.connect`).
    init(path: String, session: SessionCompositor? = nil) throws(FocusSourceError) {
        let descriptor = try UnixStreamSocket.connect(to: path, timeout: Self.timeout, serving: "sway")
        do throws(FocusSourceError) { server = try Self.checkPeer(descriptor, path: path, session: session) } catch {
            Glibc.close(descriptor)
            throw error
        }
        fileDescriptor = FileDescriptor(rawValue: descriptor)
    }

    /// Refuses a socket not served by the system's sway: a program named `sway` that only root can change. The path
    /// is the session's to name (`SWAYSOCK`, a file in its runtime folder), and a program of the user's that spoke
    /// the protocol could report any window as the focused one. With `session`, the sway must also be that
    /// session's own compositor, not one its user runs nested in their desktop.
    ///
    /// The corresponding C function is `getsockopt(SO_PEERCRED)` (`clinux_socket_peer_pid`).
    private static func checkPeer(_ descriptor: Int32, path: String, session: SessionCompositor?)
        throws(FocusSourceError) -> ProcessID
    {
        let pid = clinux_socket_peer_pid(descriptor)
        guard pid > 0 else {
            throw FocusSourceError(
                .connectionFailed, "cannot tell which process serves \(path)", underlying: Errno(rawValue: errno))
        }
        try FocusServer.checkProgram(of: ProcessID(pid), isOneOf: ["sway"], serving: path)
        if let session {
            try FocusServer.checkIsSessionsOwn(ProcessID(pid), session: session, names: ["sway"], serving: path)
        }
        return ProcessID(pid)
    }

    deinit {
        try? fileDescriptor.close()
    }

    /// Sends one message.
    ///
    /// The corresponding C function is `write` (through `FileDescriptor.writeAll`).
    func send(_ type: MessageType, _ payload: String = "") throws(FocusSourceError) {
        let body = Array(payload.utf8)
        var message = Self.magic
        withUnsafeBytes(of: UInt32(body.count)) { message.append(contentsOf: $0) }
        withUnsafeBytes(of: type.rawValue) { message.append(contentsOf: $0) }
        message += body
        do {
            _ = try fileDescriptor.writeAll(message)
        } catch {
            throw FocusSourceError(.connectionFailed, "lost the sway IPC connection", underlying: error as? Errno)
        }
    }

    /// Reads one message (a reply or an event), blocking until it is complete.
    ///
    /// The corresponding C function is `read` (through `FileDescriptor.read`).
    func receive() throws(FocusSourceError) -> (type: UInt32, payload: [UInt8]) {
        let header = try readExactly(14)
        guard header.prefix(6).elementsEqual(Self.magic) else {
            throw FocusSourceError(.protocolViolation, "sway IPC message without the i3-ipc magic")
        }
        let length = header[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let type = header[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard length <= 64 << 20 else {
            throw FocusSourceError(.protocolViolation, "sway IPC message of \(length) bytes")
        }
        return (type, try readExactly(Int(length)))
    }

    /// Ends the connection in both directions so that a thread blocked in `receive()` returns.
    ///
    /// The corresponding C function is `shutdown(SHUT_RDWR)`.
    func shutdown() {
        _ = Glibc.shutdown(fileDescriptor.rawValue, Int32(SHUT_RDWR))
    }

    private func readExactly(_ count: Int) throws(FocusSourceError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received: Int
            do {
                received = try buffer.withUnsafeMutableBytes { bytes in
                    try fileDescriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]))
                }
            } catch {
                throw FocusSourceError(.connectionFailed, "lost the sway IPC connection", underlying: error as? Errno)
            }
            guard received > 0 else { throw FocusSourceError(.connectionFailed, "sway closed the IPC connection") }
            offset += received
        }
        return buffer
    }
}
