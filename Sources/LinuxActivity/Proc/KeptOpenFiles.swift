import Glibc

/// Files read at every tick, kept open by key (a handful: the processes and terminals in front), so that a read is one
/// system call with no path to look up. Beyond `limit` open files, all are closed and opened again as needed.
///
/// Owned by one task.
final class KeptOpenFiles<Key: Hashable> {
    private var descriptors: [Key: Int32] = [:]
    private let limit: Int

    init(limit: Int = 32) {
        self.limit = limit
    }

    deinit { closeAll() }

    /// The descriptor kept for `key`, opening `path` (with `flags` and `O_CLOEXEC`) when none is; nil when it can't
    /// be opened.
    func descriptor(for key: Key, opening path: @autoclosure () -> String, flags: Int32) -> Int32? {
        if let descriptor = descriptors[key] { return descriptor }
        if descriptors.count >= limit { closeAll() }
        let descriptor = open(path(), flags | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        descriptors[key] = descriptor
        return descriptor
    }

    /// Closes the file kept for `key`, if any.
    func close(_ key: Key) {
        if let descriptor = descriptors.removeValue(forKey: key) { Glibc.close(descriptor) }
    }

    private func closeAll() {
        for descriptor in descriptors.values { Glibc.close(descriptor) }
        descriptors.removeAll()
    }
}
