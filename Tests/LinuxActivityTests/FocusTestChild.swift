import Glibc

/// A process a focus test started, known by its pid (never by name).
struct FocusTestChild: Sendable {
    /// The child's pid, which is also the pid compositors and X-Resource report for it.
    var pid: Int32
    /// The read end of its stdout, when captured.
    var output: Int32?

    /// Reads stdout until a newline (or end of file) and returns the line without it.
    func readLine() -> String? {
        guard let output else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(output, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
