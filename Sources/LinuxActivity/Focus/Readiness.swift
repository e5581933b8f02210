import Glibc
import SystemPackage

/// Waiting for descriptors to become readable, for the focus sources' event threads.
enum Readiness {
    /// Blocks until one of `descriptors` is readable (or hung up), or `timeout` passes (nil: no timeout).
    /// Returns, for each descriptor, whether it is ready; all false on timeout. `EINTR` restarts the wait.
    ///
    /// The corresponding C function is `poll`.
    static func wait(for descriptors: [FileDescriptor], timeout: Duration?) throws(Errno) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        let milliseconds: Int32
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let total = max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            milliseconds = Int32(clamping: total)
        } else {
            milliseconds = -1
        }
        while true {
            let result = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
            if result >= 0 { break }
            let error = Errno(rawValue: errno)
            guard error == .interrupted else { throw error }
        }
        return entries.map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR | POLLNVAL) != 0 }
    }
}
