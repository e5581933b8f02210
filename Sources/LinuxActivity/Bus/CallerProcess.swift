import CLinux
import Glibc
import ScreenTimeModel
import SystemPackage

/// The process that sent a D-Bus call, held by a pidfd from the moment the call arrives: its cgroup and executable
/// are read through `/proc/PID` and trusted only if the pidfd shows the process still alive afterwards, so a pid
/// reused in between can't lend another program's identity to the call.
public final class CallerProcess: @unchecked Sendable {
    // Invariant: `pidfd` is written once in init and closed once in deinit; reading and polling it is thread-safe.
    /// What the bus vouches for.
    public let credentials: BusCredentials
    private let pidfd: Int32

    /// Opens a pidfd for the sender of `credentials`; nil when the process is already gone.
    ///
    /// The C function is `pidfd_open(2)`, through `clinux_pidfd_open`.
    public init?(_ credentials: BusCredentials) {
        let descriptor = clinux_pidfd_open(credentials.process.rawValue, 0)
        guard descriptor >= 0 else { return nil }
        self.credentials = credentials
        pidfd = descriptor
    }

    deinit { close(pidfd) }

    /// Whether the process has not exited: a pidfd turns readable when its process ends.
    ///
    /// The C function is `poll(2)`.
    public var isAlive: Bool {
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }
}

extension Collector {
    /// The app `caller` belongs to, as the collector resolves every process (its systemd unit, `/.flatpak-info`, its
    /// desktop entry by executable, its parent's app, its executable's name); nil when the process ended before its
    /// identity could be read, or when it is a kernel thread.
    ///
    /// Call it on the thread that owns the collector. The collector's own record of the process is used when it has
    /// one for the same process (start time unchanged); otherwise the process is read now.
    public func application(of caller: CallerProcess) -> ResolvedApp? {
        let pid = caller.credentials.process
        let directory = "\(table.procRoot)/\(pid.rawValue)"
        guard let statBytes = FileSystem.readBytes(directory + "/stat"), let stat = ProcessStat(parsing: statBytes)
        else { return nil }
        if let known = table.entries[pid], known.stat.startTime == stat.startTime, let app = known.app {
            return caller.isAlive ? app : nil
        }
        guard let status = FileSystem.status(directory) else { return nil }
        let executable = ProcessTable.executable(procRoot: table.procRoot, pid: pid)
        var arguments: [String] = []
        if let bytes = FileSystem.readBytes(directory + "/cmdline") {
            arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            if arguments.last == "" { arguments.removeLast() }
        }
        let controlGroup = FileSystem.readBytes(directory + "/cgroup").flatMap { ControlGroup(parsing: $0[...]) }
        let entry = ProcessEntry(
            stat: stat, user: UserID(status.st_uid), executable: executable, arguments: arguments,
            controlGroup: controlGroup, app: nil, generation: 0, eventGaps: 0)
        let parent = table.entries[stat.parent]?.app
        let app = AppResolver(procRoot: table.procRoot).resolve(
            entry, parent: parent, desktopEntries: catalog(for: entry.user).desktopEntries)
        return caller.isAlive ? app : nil
    }
}

extension CallerProcess {
    /// The value of `name` in the environment the process was started with (`/proc/PID/environ`), read while the
    /// pidfd holds the process; nil when it is not set, can't be read, or the process exited meanwhile.
    public func initialEnvironmentValue(_ name: String, procRoot: String = "/proc") -> String? {
        guard let bytes = FileSystem.readBytes("\(procRoot)/\(credentials.process.rawValue)/environ") else { return nil }
        let prefix = Array((name + "=").utf8)
        for entry in bytes.split(separator: 0) where entry.starts(with: prefix) {
            let value = String(decoding: entry.dropFirst(prefix.count), as: UTF8.self)
            return isAlive ? value : nil
        }
        return nil
    }
}
