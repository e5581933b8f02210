import Glibc
import ScreenTimeModel

/// The processes under a procfs mount, kept up to date cheaply: each refresh lists the directory, reads only pids
/// not seen before and drops pids that are gone. Identity is (pid, start time): a pid reused between two refreshes is
/// noticed when its start time is re-checked (`verify`), never taken for the old process.
///
/// Owned by one task.
public final class ProcessTable {
    /// The procfs mount (`/proc`), by path so tests can point elsewhere.
    public let procRoot: String
    public private(set) var entries: [ProcessID: ProcessEntry] = [:]
    private var generation: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 4096)
    private var newPIDs: [Int32] = []

    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// What one refresh changed.
    public struct Changes: Sendable {
        public var added: [ProcessID] = []
        public var removed: [ProcessEntry] = []
    }

    /// Lists the procfs directory, reads new processes and forgets vanished ones. New processes are returned oldest
    /// first (by start time), so that a parent is always known before its children.
    @discardableResult
    public func refresh() -> Changes {
        generation &+= 1
        let current = generation
        newPIDs.removeAll(keepingCapacity: true)
        FileSystem.forEachNumericEntry(procRoot) { pid in
            let key = ProcessID(pid)
            if entries[key] != nil {
                entries[key]!.generation = current
            } else {
                newPIDs.append(pid)
            }
        }
        var changes = Changes()
        if entries.count + newPIDs.count > 0 {
            for (pid, entry) in entries where entry.generation != current {
                changes.removed.append(entry)
                entries[pid] = nil
            }
        }
        var fresh: [ProcessEntry] = []
        for pid in newPIDs {
            if var entry = readEntry(ProcessID(pid)) {
                entry.generation = current
                fresh.append(entry)
            }
        }
        fresh.sort { ($0.stat.startTime, $0.pid) < ($1.stat.startTime, $1.pid) }
        for entry in fresh {
            entries[entry.pid] = entry
            changes.added.append(entry.pid)
        }
        return changes
    }

    /// Re-reads `/proc/PID/stat` now (fresh state, foreground group). Nil when the process is gone.
    public func currentStat(of pid: ProcessID) -> ProcessStat? {
        let path = "\(procRoot)/\(pid.rawValue)/stat"
        guard let count = path.withCString({ FileSystem.read($0, into: &buffer) }) else { return nil }
        return ProcessStat(parsing: buffer[..<count])
    }

    /// Checks that the process known under `pid` is still the same one (start time unchanged) and that it has not
    /// executed another program since it was read; re-reads it otherwise. Returns the current entry, or nil when the
    /// pid is gone. Call it for the few processes that matter each tick (the foreground ones).
    public func verify(_ pid: ProcessID) -> ProcessEntry? {
        guard let known = entries[pid] else { return nil }
        guard let stat = currentStat(of: pid) else {
            entries[pid] = nil
            return nil
        }
        let executable = Self.executable(procRoot: procRoot, pid: pid)
        if stat.startTime == known.stat.startTime, executable == known.executable {
            entries[pid]!.stat = stat
            return entries[pid]
        }
        guard var entry = readEntry(pid) else {
            entries[pid] = nil
            return nil
        }
        entry.generation = known.generation
        entries[pid] = entry
        return entry
    }

    /// Stores the resolved app of a process.
    public func setApp(_ app: ResolvedApp, for pid: ProcessID) { entries[pid]?.app = app }

    private func readEntry(_ pid: ProcessID) -> ProcessEntry? {
        let directory = "\(procRoot)/\(pid.rawValue)"
        guard let stat = currentStat(of: pid), let status = FileSystem.status(directory) else { return nil }
        let executable = Self.executable(procRoot: procRoot, pid: pid)
        var arguments: [String] = []
        if let count = (directory + "/cmdline").withCString({ FileSystem.read($0, into: &buffer) }), count > 0 {
            arguments = buffer[..<count].split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            if arguments.last == "" { arguments.removeLast() }
        }
        var controlGroup: ControlGroup?
        if let count = (directory + "/cgroup").withCString({ FileSystem.read($0, into: &buffer) }) {
            controlGroup = ControlGroup(parsing: String(decoding: buffer[..<count], as: UTF8.self))
        }
        return ProcessEntry(
            stat: stat, user: UserID(status.st_uid), executable: executable, arguments: arguments,
            controlGroup: controlGroup, app: nil, generation: 0)
    }

    static func executable(procRoot: String, pid: ProcessID) -> String? {
        guard var target = FileSystem.readLink("\(procRoot)/\(pid.rawValue)/exe") else { return nil }
        if target.hasSuffix(" (deleted)") { target.removeLast(10) }
        return target
    }
}
