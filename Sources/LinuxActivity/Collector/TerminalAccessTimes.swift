import Glibc

/// When each terminal last had input: the kernel updates a terminal's access time as it is read. Its owner may set
/// that time to any moment (`touch -a -d yesterday /dev/pts/3`, to have their session taken for idle), which sets its
/// change time to the present, which no one can set: the later of the two is taken. Each terminal is
/// opened once (`O_PATH`, which reads nothing and takes no controlling terminal) and asked with `fstat(2)` at each
/// tick, with no path to look up. A pseudo-terminal that was freed has no links any more (a new one may take its
/// name): it is opened again by name.
///
/// Owned by the collector's task.
final class TerminalAccessTimes {
    private let devRoot: String
    private let files = KeptOpenFiles<String>()
    /// `O_PATH` (Linux), which the Glibc module leaves out.
    private static let pathOnly: Int32 = 0o10_000_000

    init(devRoot: String) {
        self.devRoot = devRoot
    }

    /// The access time of `tty` (`pts/3`, `tty2`), or its change time when later, in seconds since 1970; nil when
    /// it can't be read.
    func accessTime(_ tty: String) -> Int64? {
        var status = stat()
        // The kept file first; if it was freed, the terminal now under that name.
        for _ in 0..<2 {
            guard let descriptor = files.descriptor(for: tty, opening: "\(devRoot)/\(tty)", flags: Self.pathOnly) else {
                return nil
            }
            if fstat(descriptor, &status) == 0, status.st_nlink > 0 {
                return Int64(max(status.st_atim.tv_sec, status.st_ctim.tv_sec))
            }
            files.close(tty)
        }
        return nil
    }
}
