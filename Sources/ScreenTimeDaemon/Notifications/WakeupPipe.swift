import Glibc

/// A self-pipe: one thread signals it to end another thread's `poll(2)` at once.
final class WakeupPipe: Sendable {
    /// The read end, to include in a `poll(2)` set; readable while signalled.
    let readEnd: Int32
    private let writeEnd: Int32

    /// Creates the pipe, both ends non-blocking and close-on-exec.
    ///
    /// The C functions are `pipe(2)` and `fcntl(2)`.
    init() throws(DaemonServiceError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw DaemonServiceError(.busUnavailable, "cannot create a wake-up pipe", errno: .init(rawValue: errno))
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes the read end readable until the next `drain()`; a full pipe is already signalled.
    ///
    /// The C function is `write(2)`.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe so that the next `poll(2)` blocks again.
    ///
    /// The C function is `read(2)`.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
