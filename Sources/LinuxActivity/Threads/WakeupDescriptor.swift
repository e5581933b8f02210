import CLinux
import Glibc
import SystemPackage

/// A self-pipe that one thread signals to wake another thread blocked in `poll(2)`.
///
/// A loop waits on its connection and on this descriptor together, so that `close()` (and, for X11, a request made
/// from another thread) ends the wait at once instead of after a timeout. Both ends are non-blocking: signalling a
/// pipe nobody drains any more (the event thread has ended) must not block the caller.
public final class WakeupDescriptor: Sendable {
    /// The read end, to include in a `poll(2)` set; readable while signalled.
    public let fileDescriptor: FileDescriptor
    private let writeEnd: FileDescriptor

    /// Creates the pipe.
    ///
    /// The corresponding C functions are `pipe2(O_CLOEXEC)` and `fcntl(F_SETFL, O_NONBLOCK)`.
    public init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&ends) == 0 else { throw Errno(rawValue: errno) }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        fileDescriptor = FileDescriptor(rawValue: ends[0])
        writeEnd = FileDescriptor(rawValue: ends[1])
    }

    deinit {
        try? fileDescriptor.close()
        try? writeEnd.close()
    }

    /// Makes the read end readable until the next `drain()`. A full pipe is already signalled.
    ///
    /// The corresponding C function is `write`.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd.rawValue, &byte, 1)
    }

    /// The write end, for a signal handler that wakes the waiting thread (`write(2)` is async-signal-safe).
    public var signallingDescriptor: FileDescriptor { writeEnd }

    /// Empties the pipe so that the next `poll(2)` blocks again.
    ///
    /// The corresponding C function is `read`.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while buffer.withUnsafeMutableBytes({ read(fileDescriptor.rawValue, $0.baseAddress, $0.count) }) > 0 {}
    }
}
