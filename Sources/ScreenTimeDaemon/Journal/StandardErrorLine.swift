import Glibc
import SystemPackage

/// Writes whole lines to a descriptor.
enum StandardErrorLine {
    /// Writes `line` with as few `write(2)` calls as the kernel allows (one for any line under the pipe buffer),
    /// retrying on `EINTR` and giving up silently on any other error: a logger has nowhere to report its own failure.
    ///
    /// The C function is `write(2)`.
    static func write(_ line: String, to fileDescriptor: FileDescriptor = .standardError) {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fileDescriptor.rawValue, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
