import SystemPackage

/// A small file replaced as a whole: written to a temporary file beside it, `fsync(2)`ed, then `rename(2)`d over
/// the old one, so that a crash or a full disk leaves either the old contents or the new, never a mix.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, mode 0600. Links are not followed: a link at the temporary path is
    /// refused rather than written through.
    ///
    /// - Throws: the `Errno` of the failing `open(2)`, `write(2)`, `fsync(2)` or `rename(2)`.
    public static func write(_ bytes: some Collection<UInt8>, to path: FilePath) throws(Errno) {
        let temporary = FilePath(path.string + ".tmp")
        do {
            let descriptor = try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .truncate, .closeOnExec, .noFollow],
                permissions: [.ownerReadWrite])
            try descriptor.closeAfter {
                _ = try descriptor.writeAll(bytes)
                try Syscall.fsync(descriptor)
            }
            try Syscall.rename(temporary, to: path)
        } catch {
            // Nothing left behind (on a full disk, a partial temporary file would hold the blocks that are short).
            _ = try? Syscall.unlink(temporary)
            throw error as? Errno ?? Errno.ioError
        }
    }
}
