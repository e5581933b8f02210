import Glibc

/// When each terminal last had input: the kernel updates a terminal's access time as it is read. Each terminal is
/// opened once (`O_PATH`, which reads nothing and takes no controlling terminal) and asked with `fstat(2)` at each
/// tick, with no path to look up. A pseudo-terminal that was freed has no links any more (a new one may take its
/// name): it is opened again by name.
///
/// Owned by the collector's task.
final class TerminalAccessTimes {
    private let devRoot: String
    private var descriptors: [String: Int32] = [:]
    /// At most this many terminals are kept open (beyond that, all are closed and opened again as needed).
    private static let openLimit = 32
    /// `O_PATH` (Linux), which the Glibc module leaves out.
    private static let pathOnly: Int32 = 0o10_000_000

    init(devRoot: String) {
        self.devRoot = devRoot
    }

    deinit { closeAll() }

    /// The access time of `tty` (`pts/3`, `tty2`) in seconds since 1970, or nil when it can't be read.
    func accessTime(_ tty: String) -> Int64? {
        var status = stat()
        if let descriptor = descriptors[tty] {
            if fstat(descriptor, &status) == 0, status.st_nlink > 0 { return Int64(status.st_atim.tv_sec) }
            close(descriptor)
            descriptors[tty] = nil
        }
        if descriptors.count >= Self.openLimit { closeAll() }
        let descriptor = open("\(devRoot)/\(tty)", Self.pathOnly | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        descriptors[tty] = descriptor
        return Int64(status.st_atim.tv_sec)
    }

    private func closeAll() {
        for descriptor in descriptors.values { close(descriptor) }
        descriptors.removeAll()
    }
}
