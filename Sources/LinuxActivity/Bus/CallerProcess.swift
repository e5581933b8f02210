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
    /// one for the same process running the same program in the same cgroup; otherwise the process is read now.
    public func application(of caller: CallerProcess) -> ResolvedApp? {
        let pid = caller.credentials.process
        guard let entry = table.readEntry(pid) else { return nil }
        // The table's app holds while the process runs what it ran when the table read it (it may have been read
        // before its exec, when nothing reports executions).
        if let known = table.entries[pid], known.stat.startTime == entry.stat.startTime,
            known.executable == entry.executable, known.controlGroup == entry.controlGroup, let app = known.app
        {
            return caller.isAlive ? app : nil
        }
        let parent = table.entries[entry.stat.parent]?.app
        let app = AppResolver(procRoot: table.procRoot, trustsUnitNames: !configuration.limitedByGuardian).resolve(
            entry, parent: parent, desktopEntries: catalog(for: entry.user).desktopEntries)
        return caller.isAlive ? app : nil
    }
}

extension CallerProcess {
    /// The value of `name` in the environment the process was started with (`/proc/PID/environ`, see
    /// `ProcessEnvironment.read`), read while the pidfd holds the process; nil when it is not set, can't be read, or
    /// the process exited meanwhile.
    public func initialEnvironmentValue(_ name: String, procRoot: String = "/proc") -> String? {
        guard let value = ProcessEnvironment.read(pid: credentials.process, procRoot: procRoot)?[name] else {
            return nil
        }
        return isAlive ? value : nil
    }
}
