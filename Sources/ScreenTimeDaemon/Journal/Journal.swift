import CSystemd
import Glibc
import SystemPackage

/// The systemd journal's native protocol: structured entries written to journald's socket.
public enum Journal {
    /// Writes one entry made of `fields`. Throws when the entry is malformed (`EINVAL`: a field without a name or
    /// value) or the socket refuses it (`ECONNREFUSED`, `EAGAIN`). Without a journald socket at all libsystemd
    /// drops the entry and reports success, by design: choose the journal only when `LoggingSetup` says so.
    ///
    /// The C function is `sd_journal_sendv(3)`.
    public static func send(_ fields: [JournalField]) throws(DaemonServiceError) {
        // One contiguous buffer, so that every iovec can point into it while it is pinned.
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.encoded)
            ranges.append(start..<buffer.count)
        }
        let result: Int32 = buffer.withUnsafeMutableBytes { bytes in
            let vectors = ranges.map { range in
                iovec(iov_base: bytes.baseAddress.map { $0 + range.lowerBound }, iov_len: range.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        guard result >= 0 else {
            throw DaemonServiceError(
                .journalFailed, "cannot write to the systemd journal", errno: Errno(negatedResult: result))
        }
    }
}
