import CLinux
import Glibc
import ScreenTimeModel

/// Process fork, exec and exit events from the kernel's proc connector, read without blocking.
///
/// The kernel delivers them only to listeners in the initial PID and user namespaces, and before Linux 6.6 only with
/// `CAP_NET_ADMIN`; `open()` returns nil wherever they can't be had, and the process table then lists `/proc` each
/// tick instead.
final class ProcessEvents {
    /// One event.
    enum Event {
        case fork(child: ProcessID, parent: ProcessID)
        case exec(ProcessID)
        case exit(ProcessID)
        case rename(ProcessID)
    }

    /// The result of draining the socket.
    enum Batch {
        case events([Event])
        /// The socket's buffer overflowed: events were lost; rescan `/proc`.
        case overflow
    }

    private let socket: Int32
    private var buffer = [clinux_process_event](repeating: clinux_process_event(), count: 512)

    private init(socket: Int32) { self.socket = socket }

    /// The socket, readable while events are pending.
    var descriptor: Int32 { socket }

    deinit { close(socket) }

    /// Subscribes, or returns nil where events are not delivered (see the type's comment).
    /// The C functions are `socket(2)`, `bind(2)` and `send(2)` of `PROC_CN_MCAST_LISTEN`.
    static func open() -> ProcessEvents? {
        guard inInitialNamespaces() else { return nil }
        let socket = clinux_proc_events_open(4 << 20)
        return socket >= 0 ? ProcessEvents(socket: socket) : nil
    }

    /// Whether this process sees the initial PID and user namespaces (inode numbers fixed by the kernel).
    static func inInitialNamespaces() -> Bool {
        FileSystem.readLink("/proc/self/ns/pid") == "pid:[4026531836]"
            && FileSystem.readLink("/proc/self/ns/user") == "user:[4026531837]"
    }

    /// Everything pending, in order. The C function is `recv(2)`.
    func drain() -> Batch {
        var events: [Event] = []
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                clinux_proc_events_read(socket, $0.baseAddress, Int32($0.count))
            }
            if count < 0 { return clinux_errno() == ENOBUFS ? .overflow : .events(events) }
            for event in buffer.prefix(Int(count)) {
                let pid = ProcessID(event.pid)
                switch event.kind {
                case 1: events.append(.fork(child: pid, parent: ProcessID(event.parent)))
                case 2: events.append(.exec(pid))
                case 3: events.append(.exit(pid))
                case 4: events.append(.rename(pid))
                default: break
                }
            }
            if Int(count) < buffer.count { return .events(events) }
        }
    }
}
