import CLinux
import Glibc
import SystemPackage

// Every system call the module makes that swift-system does not already wrap, each wrapped once. `EINTR` is
// retried here and nowhere else; `-1`/`errno` becomes a thrown `Errno`.
enum Syscall {
    /// Runs `body` until it returns something other than `-1` with `EINTR`, turning `-1` into the current `Errno`.
    private static func retryingInterrupts<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = Errno(rawValue: Glibc.errno)
            if code != .interrupted { throw code }
        }
    }

    /// Opens a file descriptor that refers to the process `pid` (not to its number).
    /// The corresponding C function is `pidfd_open(2)`, reached through `clinux_pidfd_open`.
    static func pidfdOpen(_ pid: pid_t) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { clinux_pidfd_open(pid, 0) })
    }

    /// Sends `signal` to the process a pidfd refers to; `ESRCH` once that process has exited, whatever runs under
    /// its old number. The corresponding C function is `pidfd_send_signal(2)`, through `clinux_pidfd_send_signal`.
    static func pidfdSendSignal(_ pidfd: FileDescriptor, _ signal: Int32) throws(Errno) {
        _ = try retryingInterrupts { clinux_pidfd_send_signal(pidfd.rawValue, signal, 0) }
    }

    /// Waits up to `timeoutMilliseconds` (`-1`: forever, `0`: not at all) for `events` on one descriptor and
    /// returns the events that happened (empty on timeout). The corresponding C function is `poll(2)`.
    static func poll(_ descriptor: FileDescriptor, events: Int16, timeoutMilliseconds: Int32) throws(Errno) -> Int16 {
        var entry = pollfd(fd: descriptor.rawValue, events: events, revents: 0)
        let ready = try retryingInterrupts { Glibc.poll(&entry, 1, timeoutMilliseconds) }
        return ready == 0 ? 0 : entry.revents
    }

    /// Flushes a file's data and metadata to its device. The corresponding C function is `fsync(2)`.
    static func fsync(_ descriptor: FileDescriptor) throws(Errno) {
        _ = try retryingInterrupts { Glibc.fsync(descriptor.rawValue) }
    }

    /// Atomically replaces `destination` with `source`. The corresponding C function is `rename(2)`.
    static func rename(_ source: FilePath, to destination: FilePath) throws(Errno) {
        let result = source.withPlatformString { from in
            destination.withPlatformString { to in Glibc.rename(from, to) }
        }
        if result == -1 { throw Errno(rawValue: Glibc.errno) }
    }

    /// Removes a file. The corresponding C function is `unlink(2)`.
    static func unlink(_ path: FilePath) throws(Errno) {
        if path.withPlatformString({ Glibc.unlink($0) }) == -1 { throw Errno(rawValue: Glibc.errno) }
    }

    /// Sets the calling thread's scheduling policy (which may include `SCHED_RESET_ON_FORK`) and static priority.
    /// The corresponding C function is `sched_setscheduler(2)` with pid 0.
    static func setScheduler(policy: Int32, priority: Int32) throws(Errno) {
        var parameters = sched_param(sched_priority: priority)
        _ = try retryingInterrupts { Glibc.sched_setscheduler(0, policy, &parameters) }
    }

    /// Sets the calling thread's nice value. The corresponding C function is `setpriority(2)` with `PRIO_PROCESS`
    /// and who 0, which on Linux names the calling thread.
    static func setNice(_ value: Int32) throws(Errno) {
        _ = try retryingInterrupts { Glibc.setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value) }
    }

    /// The value of `SCHED_RESET_ON_FORK`, a flag ORed into a policy. Read from C through `clinux_sched_reset_on_fork`.
    static var resetOnForkFlag: Int32 { clinux_sched_reset_on_fork() }
}
