import Foundation
import Glibc

/// A bound AF_UNIX datagram socket standing in for systemd's notification socket, with `$NOTIFY_SOCKET` pointing
/// at it while the value lives.
final class NotifySocketListener {
    let directory: ScratchDirectory
    let path: String
    private let descriptor: Int32
    private let previous: String?

    init() throws {
        directory = try ScratchDirectory()
        let path = directory.path + "/notify"
        self.path = path
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.descriptor = descriptor
        previous = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"]
        setenv("NOTIFY_SOCKET", path, 1)
    }

    deinit {
        if let previous { setenv("NOTIFY_SOCKET", previous, 1) } else { unsetenv("NOTIFY_SOCKET") }
        close(descriptor)
    }

    /// The next datagram's text, or nil when none arrives within `timeout`.
    func receive(timeout: Duration = .seconds(10)) -> String? {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000)
        guard poll(&entry, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

/// Sets environment variables for a scope and restores them afterwards.
struct EnvironmentOverride: ~Copyable {
    private let previous: [String: String?]

    init(_ values: [String: String?]) {
        let environment = ProcessInfo.processInfo.environment
        previous = Dictionary(uniqueKeysWithValues: values.keys.map { ($0, environment[$0]) })
        for (key, value) in values {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
    }

    deinit {
        for (key, value) in previous {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
    }
}
