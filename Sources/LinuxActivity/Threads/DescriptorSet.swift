import CLinux
import SystemPackage

/// Descriptors a loop waits on, registered once with the kernel (`epoll(7)`): a wait hands the kernel no list to set
/// up and take down, which is a good part of what waking once a second costs.
///
/// Owned by the one thread that waits.
public final class DescriptorSet {
    private let epoll: FileDescriptor

    /// Registers `descriptors` for readability; the i-th reports as bit `1 << i` of `wait`'s result (at most 64).
    ///
    /// The corresponding C functions are `epoll_create1` and `epoll_ctl`.
    public init(_ descriptors: [FileDescriptor]) throws(Errno) {
        let created = descriptors.map(\.rawValue).withUnsafeBufferPointer {
            clinux_epoll_open($0.baseAddress, Int32($0.count))
        }
        guard created >= 0 else { throw Errno(rawValue: clinux_errno()) }
        epoll = FileDescriptor(rawValue: created)
    }

    deinit { try? epoll.close() }

    /// Adds `descriptor` to the set (reporting as bit `1 << bit`), or removes it.
    ///
    /// The corresponding C function is `epoll_ctl`.
    public func watch(_ descriptor: FileDescriptor, asBit bit: Int, _ watching: Bool) throws(Errno) {
        guard clinux_epoll_watch(epoll.rawValue, descriptor.rawValue, Int32(bit), watching ? 1 : 0) == 0 else {
            throw Errno(rawValue: clinux_errno())
        }
    }

    /// Blocks until a descriptor is readable (or hung up) or `timeoutMilliseconds` pass (-1: no timeout). Returns the
    /// bits of the ready descriptors: 0 on timeout or when a signal interrupted the wait.
    ///
    /// The corresponding C function is `epoll_wait`.
    public func wait(timeoutMilliseconds: Int32) -> UInt64 {
        clinux_epoll_wait(epoll.rawValue, timeoutMilliseconds)
    }
}
