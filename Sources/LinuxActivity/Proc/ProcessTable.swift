import Glibc
import ScreenTimeModel

/// The processes under a procfs mount, kept up to date cheaply: a refresh reads only processes not seen before (found
/// through proc connector events, or by listing the directory) and drops those that are gone. Identity is (pid, start time): a pid reused between two refreshes is
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

    /// Brings the table up to date and reports what changed. New processes are returned oldest first (by start
    /// time), so that a parent is always known before its children.
    ///
    /// With proc connector events (the real `/proc`, initial namespaces, root or Linux ≥ 6.6) only the processes
    /// that forked, executed or exited are read, and `/proc` is listed again only on an event overflow or every
    /// `rescanInterval` refreshes; otherwise `/proc` is listed each time.
    @discardableResult
    public func refresh() -> Changes {
        var changes = carried
        carried = Changes()
        let fresh = refreshSources()
        changes.added += fresh.added
        changes.removed += fresh.removed
        return changes
    }

    private func refreshSources() -> Changes {
        if events == nil, !eventsTried {
            eventsTried = true
            if procRoot == "/proc", useProcessEvents { events = ProcessEvents.open() }
        }
        refreshesSinceScan += 1
        guard let events, generation > 0, refreshesSinceScan < rescanInterval else {
            refreshesSinceScan = 0
            if let events { _ = events.drain() }
            return scan()
        }
        switch events.drain() {
        case .overflow:
            refreshesSinceScan = 0
            return scan()
        case .events(let batch):
            var changes = Changes()
            guard !batch.isEmpty else { return changes }
            var pending: Set<ProcessID> = []
            for event in batch {
                switch event {
                case .fork(let child, _):
                    pending.insert(child)
                case .exec(let pid):
                    pending.insert(pid)
                case .rename:
                    break
                case .exit(let pid):
                    pending.remove(pid)
                    if let entry = entries.removeValue(forKey: pid) { changes.removed.append(entry) }
                }
            }
            var fresh: [ProcessEntry] = []
            for pid in pending {
                if let old = entries.removeValue(forKey: pid) { changes.removed.append(old) }
                if var entry = readEntry(pid) {
                    entry.generation = generation
                    fresh.append(entry)
                }
            }
            insert(fresh, into: &changes)
            return changes
        }
    }

    /// Whether `refresh` may use proc connector events (tests that compare both paths turn it off).
    public var useProcessEvents = true
    /// With events, `/proc` is still listed every this many refreshes, to catch anything the kernel didn't report.
    public var rescanInterval = 60
    /// Whether proc connector events are in use.
    public var followsProcessEvents: Bool { events != nil }
    private var events: ProcessEvents?
    /// Replacements and disappearances found by `verify`, reported by the next `refresh`.
    private var carried = Changes()
    private var eventsTried = false
    private var refreshesSinceScan = 0

    /// Lists the procfs directory, reads new processes and forgets vanished ones.
    private func scan() -> Changes {
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
        for (pid, entry) in entries where entry.generation != current {
            changes.removed.append(entry)
            entries[pid] = nil
        }
        var fresh: [ProcessEntry] = []
        for pid in newPIDs {
            if var entry = readEntry(ProcessID(pid)) {
                entry.generation = current
                fresh.append(entry)
            }
        }
        insert(fresh, into: &changes)
        return changes
    }

    private func insert(_ fresh: [ProcessEntry], into changes: inout Changes) {
        for entry in fresh.sorted(by: { ($0.stat.startTime, $0.pid) < ($1.stat.startTime, $1.pid) }) {
            entries[entry.pid] = entry
            changes.added.append(entry.pid)
        }
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
            carried.removed.append(known)
            return nil
        }
        let executable = Self.executable(procRoot: procRoot, pid: pid)
        if stat.startTime == known.stat.startTime, executable == known.executable {
            entries[pid]!.stat = stat
            return entries[pid]
        }
        carried.removed.append(known)
        guard var entry = readEntry(pid) else {
            entries[pid] = nil
            return nil
        }
        entry.generation = known.generation
        entries[pid] = entry
        carried.added.append(pid)
        return entry
    }

    /// Stores the resolved app of a process.
    public func setApp(_ app: ResolvedApp, for pid: ProcessID) { entries[pid]?.app = app }

    private func readEntry(_ pid: ProcessID) -> ProcessEntry? {
        let directory = "\(procRoot)/\(pid.rawValue)"
        guard let stat = currentStat(of: pid), let status = FileSystem.status(directory) else { return nil }
        if stat.pid.rawValue == 2 || stat.parent.rawValue == 2 {
            return ProcessEntry(
                stat: stat, user: UserID(status.st_uid), executable: nil, arguments: [], controlGroup: nil, app: nil,
                generation: 0)
        }
        let executable = Self.executable(procRoot: procRoot, pid: pid)
        // The command line matters only for interpreters (their script is the program) and when the executable
        // can't be read; skipping it elsewhere saves a third of a cold scan.
        var arguments: [String] = []
        if executable.map({ ProgramResolver.isInterpreter(baseName($0)) }) ?? true,
            let count = (directory + "/cmdline").withCString({ FileSystem.read($0, into: &buffer) }), count > 0
        {
            arguments = buffer[..<count].split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            if arguments.last == "" { arguments.removeLast() }
        }
        var controlGroup: ControlGroup?
        if let count = (directory + "/cgroup").withCString({ FileSystem.read($0, into: &buffer) }) {
            controlGroup = ControlGroup(parsing: buffer[..<count])
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
