import ScreenTimeModel
import SystemPackage

/// The fields of `/proc/PID/stat` that enforcement needs: the scheduler state and the start time.
public struct ProcessStatus: Hashable, Sendable {
    /// The state letter (field 3): `R` running, `S` sleeping, `T` stopped by a signal, `Z` zombie, … A task in a
    /// frozen cgroup shows `S`; only the cgroup's `cgroup.events` tells that it is frozen.
    public var state: Character
    /// Clock ticks since boot at which the process started (field 22).
    public var startTime: UInt64

    /// Parses the contents of a `/proc/PID/stat` file; nil when it is not one. The command name (field 2) may
    /// contain spaces and parentheses, so fields are counted from the last `)`.
    public init?(statLine: String) {
        guard let close = statLine.lastIndex(of: ")") else { return nil }
        let fields = statLine[statLine.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state); field 22 is therefore fields[19].
        guard fields.count > 19, let state = fields[0].first, let startTime = UInt64(fields[19]) else { return nil }
        self.state = state
        self.startTime = startTime
    }

    /// Reads `/proc/PID/stat`; nil when the process does not exist (any more).
    public static func read(_ pid: ProcessID, procRoot: FilePath = "/proc") -> ProcessStatus? {
        read(procRoot.appending("\(pid.rawValue)/stat"))
    }

    /// Reads a `stat` file of `/proc` (a process's, or a thread's `task/TID/stat`); nil when it is gone.
    static func read(_ file: FilePath) -> ProcessStatus? {
        guard let text = try? TextFile.read(file) else { return nil }
        return ProcessStatus(statLine: text)
    }
}
