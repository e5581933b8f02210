import ScreenTimeModel

/// What the collector knows of one process, read once when the process is first seen.
public struct ProcessEntry: Sendable {
    /// `/proc/PID/stat` at first sight. `state` and `terminalForegroundGroup` are stale afterwards; pid, parent,
    /// start time, terminal and (usually) process group are not.
    public var stat: ProcessStat
    /// The user the process runs for: its effective uid (owner of `/proc/PID`), or the owner of the user namespace
    /// it runs in when that is a user's rootless container (`ProcessOwner`).
    public var user: UserID
    /// Whether the process runs under another uid than `user`'s, in a user namespace of theirs: one of their
    /// subordinate ids, in a rootless container, whose every file is theirs to change.
    public var runsAsSubordinateID = false
    /// The resolved executable (`/proc/PID/exe`), nil for kernel threads or when not permitted.
    public var executable: String?
    /// The thread whose `/proc` folder the process was read from when its main thread had exited while others ran on
    /// (its own `exe`, `cmdline`, `root` and `cwd` then read as nothing, and its `cgroup` stays where the main thread
    /// exited when the process is moved); nil: the process's own.
    public var thread: Int32? = nil
    /// `/proc/PID/cmdline` (or the running thread's, see `thread`) split at NULs, at first sight; read only for
    /// interpreters, the dynamic loader and when `executable` is nil.
    public var arguments: [String]
    public var controlGroup: ControlGroup?
    /// The app, resolved once per process identity.
    public var app: ResolvedApp?
    /// Bookkeeping for the table's sweep.
    var generation: UInt32
    /// The table's count of lost proc connector events when this entry was read or last checked.
    var eventGaps: UInt32

    public var pid: ProcessID { stat.pid }
    /// The folder under `procRoot` to read the process's program, root, working directory and cgroup from.
    public func folder(in procRoot: String) -> String { Self.folder(of: pid, thread: thread, in: procRoot) }

    /// The folder of process `pid` under `procRoot`, or that of its thread `thread`.
    public static func folder(of pid: ProcessID, thread: Int32?, in procRoot: String) -> String {
        thread.map { "\(procRoot)/\(pid.rawValue)/task/\($0)" } ?? "\(procRoot)/\(pid.rawValue)"
    }
    public var identity: ProcessIdentity { stat.identity }
    /// Kernel threads have no executable and descend from `kthreadd` (pid 2).
    public var isKernelThread: Bool { stat.pid.rawValue == 2 || stat.parent.rawValue == 2 }
}
