import CLinux
import Glibc

/// The pids handed out since the last look, from the last pid the kernel allocated in the reader's PID namespace (the
/// fifth field of `/proc/loadavg`). Pids are allocated in order, wrapping at `pid_max`, so every process created
/// since — also one in a nested namespace, which holds a pid in this one too — has a pid in that range: reading
/// those few pids replaces listing `/proc`, whose cost grows with every process there is. A range too long to be
/// worth probing, or one that wrapped, is reported as unknown, and the caller lists `/proc` again.
final class PIDAllocation {
    enum Since: Equatable {
        /// No pid was allocated.
        case nothing
        /// These pids were allocated (some may be threads, or gone already).
        case pids(ClosedRange<Int32>)
        /// The first look, a wrap of the pid space or more pids than `limit`.
        case unknown
    }

    private let descriptor: Int32
    private var last: Int32?
    private var buffer = [UInt8](repeating: 0, count: 256)
    /// At most this many new pids are probed one by one; more are found by listing `/proc`.
    let limit: Int32

    init?(procRoot: String, limit: Int32 = 256) {
        descriptor = Glibc.open(procRoot + "/loadavg", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.limit = limit
    }

    deinit { Glibc.close(descriptor) }

    /// The pids allocated since the last call.
    func advance() -> Since {
        guard let current = lastAllocated() else {
            last = nil
            return .unknown
        }
        defer { last = current }
        guard let last else { return .unknown }
        if current == last { return .nothing }
        guard current > last, current - last <= limit else { return .unknown }
        return .pids((last + 1)...current)
    }

    /// Whether `pid` is a process (a thread group's leader): a thread has a `/proc/PID` too, but is part of its
    /// process. `pidfd_open(2)` refuses a thread that does not lead its group (`ENOENT`; `EINVAL` before Linux 6.9)
    /// and a pid in use by nobody (`ESRCH`).
    static func isProcess(_ pid: Int32) -> Bool {
        let descriptor = clinux_pidfd_open(pid, 0)
        guard descriptor >= 0 else { return false }
        Glibc.close(descriptor)
        return true
    }

    private func lastAllocated() -> Int32? {
        guard let count = FileSystem.read(descriptor, into: &buffer) else { return nil }
        // "0.00 0.01 0.05 1/123 4567\n": the last field.
        var fields = buffer[..<count].split(separator: 0x20)
        guard fields.count == 5 else { return nil }
        if fields[4].last == 0x0A { fields[4] = fields[4].dropLast() }
        var value: Int32 = 0
        for byte in fields[4] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value &* 10 &+ Int32(byte - 0x30)
        }
        return value
    }
}
