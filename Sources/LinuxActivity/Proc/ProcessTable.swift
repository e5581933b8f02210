import Glibc
import ScreenTimeModel
import SystemPackage

/// The processes under a procfs mount, kept up to date cheaply: a refresh reads only processes not seen before (found
/// through proc connector events, or by listing the directory) and drops those that are gone. Identity is (pid, start time): a pid reused between two refreshes is
/// noticed when its start time is re-checked (`verify`), never taken for the old process.
///
/// Owned by one task.
public final class ProcessTable {
    /// The procfs mount (`/proc`), by path so tests can point elsewhere.
    public let procRoot: String
    public private(set) var entries: [ProcessID: ProcessEntry] = [:]
    /// The pids of `entries` by owner, so that a caller interested in one user (the enforcer) doesn't walk the whole
    /// table.
    public private(set) var processIDsByUser: [UserID: Set<ProcessID>] = [:]
    /// The pids of `entries` by app, so that a caller interested in a few apps (the enforcer, with its shielded ones)
    /// looks at the apps rather than at every process.
    public private(set) var processIDsByApp: [AppID: Set<ProcessID>] = [:]
    private var generation: UInt32 = 0
    /// Bumped when a process is added, removed or given its app (not when its `stat` is read again): what is derived
    /// from who runs what stays valid until it changes.
    public private(set) var changeCount: UInt64 = 0
    /// Bumped when a process that inherited its app from a parent is added or removed, or gets or loses such an app:
    /// what is kept of those processes (for a restart) is current while this doesn't change.
    public private(set) var inheritedRevision: UInt64 = 0
    /// The users of the login sessions (set by the collector): a process that runs as one of them is theirs, with no
    /// look at its user namespace. Any other process's namespace is looked at once, when it is read: one in a user's
    /// rootless container runs under a subordinate id and is that user's (`ProcessOwner`).
    public var sessionUsers: Set<UserID> = []
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
        if events == nil {
            readAgainIfExecuted(justAdded.filter { !interpreters.contains($0) } + interpreters, into: &changes)
        }
        if !unloaded.isEmpty { readAgain(Array(unloaded), into: &changes) { self.loadsProgram($0) } }
        if !leaderless.isEmpty { forgetExitedLeaderless(into: &changes) }
        let fresh = refreshSources()
        changes.added += fresh.added
        changes.removed += fresh.removed
        justAdded = events == nil ? fresh.added : []
        return changes
    }

    /// Without events, the processes added by the last refresh: a new process is often read between its fork and
    /// its exec (a launcher such as `systemd-run --scope` or `sh -c 'exec …'`), so its executable is looked at once
    /// more, one refresh later.
    private var justAdded: [ProcessID] = []
    /// The processes that run an interpreter (`ProgramResolver.isInterpreter`): a shell or a script may run another
    /// program whenever it likes (`sh -c 'sleep 5; exec game'`), so without events their executables are compared at
    /// every refresh rather than only at the next listing. A desktop has a few (its terminals' shells, some scripts).
    private var interpreters: Set<ProcessID> = []
    /// The processes that run the dynamic loader (`ld.so PROGRAM`) and had not mapped their program when they were
    /// read: read between their `exec` and the loader's mapping of the program, which a program on a slow file
    /// system (one the user serves through FUSE) can make last. They are read again at every refresh until they
    /// have, so that they are known by their program rather than as the loader.
    private var unloaded: Set<ProcessID> = []
    /// The processes whose main thread has exited while other threads run on (`pthread_exit` in `main`). With events
    /// the kernel reports the main thread's exit as the process's, and nothing when the last thread ends: each is
    /// looked at every refresh until it has exited.
    private var leaderless: Set<ProcessID> = []

    /// Whether the process at `pid` (the one that started at `startTime`, when known), whose main thread the kernel
    /// reports as exited, runs on in other threads.
    private func runsOnWithoutItsMainThread(_ pid: ProcessID, startedAt startTime: UInt64?) -> Bool {
        guard let stat = readStat(of: pid) else { return false }
        return (startTime == nil || stat.startTime == startTime) && stat.runsWithoutItsMainThread
    }

    /// Forgets the processes of `leaderless` whose last thread has ended.
    private func forgetExitedLeaderless(into changes: inout Changes) {
        for pid in leaderless {
            guard let known = entries[pid] else {
                leaderless.remove(pid)
                continue
            }
            if !runsOnWithoutItsMainThread(pid, startedAt: known.stat.startTime), let entry = remove(pid) {
                changes.removed.append(entry)
            }
        }
    }

    /// Reads again each of `pids` that runs another executable than when it was read (or has exited).
    private func readAgainIfExecuted(_ pids: [ProcessID], into changes: inout Changes) {
        readAgain(pids, into: &changes) { known in
            Self.executable(procRoot: procRoot, pid: known.pid) != known.executable
        }
    }

    /// Reads again each of `pids` for which `isStale` holds (a process gone meanwhile is reported removed).
    private func readAgain(
        _ pids: [ProcessID], into changes: inout Changes, when isStale: (ProcessEntry) -> Bool
    ) {
        for pid in pids {
            guard let known = entries[pid], !known.isKernelThread, isStale(known) else { continue }
            changes.removed.append(known)
            remove(pid)
            guard var entry = readEntry(pid) else { continue }
            entry.generation = known.generation
            store(entry)
            changes.added.append(pid)
        }
    }

    private func refreshSources() -> Changes {
        if events == nil, !eventsTried {
            eventsTried = true
            if procRoot == "/proc", useProcessEvents { events = ProcessEvents.open() }
        }
        refreshesSinceScan += 1
        if events == nil, generation > 0, refreshesSinceScan < probeRescanInterval, let allocation {
            switch allocation.advance() {
            case .nothing: return Changes()
            case .pids(let pids): return probe(pids)
            case .unknown: break
            }
        }
        guard let events, generation > 0, refreshesSinceScan < rescanInterval else {
            refreshesSinceScan = 0
            if let events { _ = events.drain() }
            // A pid allocated from here on is a process this listing may miss: the next probe starts here.
            if events == nil { _ = allocation?.advance() }
            return scan()
        }
        switch events.drain() {
        case .overflow:
            refreshesSinceScan = 0
            eventGaps &+= 1
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
                    // Also a process not read yet, whose fork, exec and main thread's exit came in this batch.
                    let known = entries[pid]
                    if known != nil || pending.contains(pid),
                        runsOnWithoutItsMainThread(pid, startedAt: known?.stat.startTime)
                    {
                        if let index = entries.index(forKey: pid) {
                            leaderless.insert(pid)
                            let thread = Self.runningThread(of: pid, procRoot: procRoot)
                            withEntry(at: index) { $0.thread = thread }
                        }
                        continue
                    }
                    pending.remove(pid)
                    if let entry = remove(pid) { changes.removed.append(entry) }
                }
            }
            var fresh: [ProcessEntry] = []
            for pid in pending {
                if let old = remove(pid) { changes.removed.append(old) }
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
    /// With events, `/proc` is still listed every this many refreshes (ten minutes at one a second), to catch anything
    /// the kernel didn't report. Lost events are not what it is for: the socket reports those (`ENOBUFS`), and the
    /// next refresh lists `/proc` at once.
    public var rescanInterval = 600
    /// Without events, the pids allocated since the last refresh are read one by one (`PIDAllocation`), and `/proc`
    /// is listed only every this many refreshes, to forget the processes that exited and to notice those that ran
    /// another program since they were read.
    public var probeRescanInterval = 15
    /// Whether `refresh` may read new pids one by one instead of listing `/proc` (tests of the listing turn it off).
    public var probesAllocatedPIDs = true
    private lazy var allocation: PIDAllocation? =
        probesAllocatedPIDs && procRoot == "/proc" ? PIDAllocation(procRoot: procRoot) : nil
    /// Whether proc connector events are in use.
    public var followsProcessEvents: Bool { events != nil }
    /// The proc connector's socket when the table follows its events: readable as soon as a process forks, runs a
    /// new program or exits, until the next `refresh()`.
    public var eventsDescriptor: FileDescriptor? { events.map { FileDescriptor(rawValue: $0.descriptor) } }
    private var events: ProcessEvents?
    /// Replacements and disappearances found by `verify`, reported by the next `refresh`.
    private var carried = Changes()
    private var eventsTried = false
    private var refreshesSinceScan = 0
    /// How many times proc connector events were lost (an overflow); an entry read before the last loss may have
    /// executed another program unseen.
    private(set) var eventGaps: UInt32 = 0

    /// How many times `refresh` listed the procfs directory.
    public private(set) var listingCount = 0

    /// Lists the procfs directory, reads new processes and forgets vanished ones.
    private func scan() -> Changes {
        listingCount += 1
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
            remove(pid)
        }
        // Without events, a program executed later than a refresh after its process appeared (`sh -c 'sleep 5; exec
        // game'`) is seen only by comparing executables: each listing compares every process's (a `readlink` each,
        // every `probeRescanInterval` refreshes).
        if events == nil { readAgainIfExecuted(Array(entries.keys), into: &changes) }
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

    /// Reads the processes among `pids`, pids allocated since the last refresh. A pid the table knows was either read
    /// by the listing that raced with its allocation (same start time: kept) or belonged to a process that has exited
    /// since (replaced).
    private func probe(_ pids: ClosedRange<Int32>) -> Changes {
        var changes = Changes()
        var fresh: [ProcessEntry] = []
        for pid in pids where PIDAllocation.isProcess(pid) {
            let key = ProcessID(pid)
            guard var entry = readEntry(key) else { continue }
            if let known = entries[key] {
                if known.stat.startTime == entry.stat.startTime { continue }
                changes.removed.append(known)
                remove(key)
            }
            entry.generation = generation
            fresh.append(entry)
        }
        insert(fresh, into: &changes)
        return changes
    }

    private func insert(_ fresh: [ProcessEntry], into changes: inout Changes) {
        for entry in fresh.sorted(by: { ($0.stat.startTime, $0.pid) < ($1.stat.startTime, $1.pid) }) {
            store(entry)
            changes.added.append(entry.pid)
        }
    }

    /// Re-reads `/proc/PID/stat` now (fresh state, foreground group). Nil when the process is gone.
    ///
    /// With `keepingOpen`, for the few processes read at every tick, the file stays open and is read again with
    /// `pread(2)`: one system call instead of three. An open `stat` belongs to its process: once that one has exited
    /// the read fails, even if the pid was reused.
    public func currentStat(of pid: ProcessID, keepingOpen: Bool = false) -> ProcessStat? {
        guard keepingOpen else { return readStat(of: pid) }
        guard
            let descriptor = statFiles.descriptor(
                for: pid, opening: "\(procRoot)/\(pid.rawValue)/stat", flags: O_RDONLY)
        else { return nil }
        guard let count = FileSystem.read(descriptor, into: &buffer) else {
            statFiles.close(pid)
            return nil
        }
        return ProcessStat(parsing: buffer[..<count])
    }

    /// Reads `/proc/PID/stat` once.
    private func readStat(of pid: ProcessID) -> ProcessStat? {
        let path = "\(procRoot)/\(pid.rawValue)/stat"
        guard let count = path.withCString({ FileSystem.readGenerated($0, into: &buffer) }) else { return nil }
        return ProcessStat(parsing: buffer[..<count])
    }

    /// The `stat` files read at every tick (a handful of terminals and windows in front).
    private let statFiles = KeptOpenFiles<ProcessID>()

    /// Checks that the process known under `pid` is still the same one (start time unchanged) and that it has not
    /// executed another program since it was read; re-reads it otherwise. Returns the current entry, or nil when the
    /// pid is gone. Call it for the few processes that matter each tick (the foreground ones); `stat` is the process's
    /// `stat` when the caller has just read it.
    ///
    /// A program executed since the last refresh is noticed by the next one when the kernel reports executions (proc
    /// connector events); `/proc/PID/exe` is compared only without them, or when events were lost since the entry was
    /// read.
    public func verify(_ pid: ProcessID, stat fresh: ProcessStat? = nil) -> ProcessEntry? {
        // One lookup, and the entry is read and updated in place: the same process is the usual case, every tick.
        guard let index = entries.index(forKey: pid) else { return nil }
        guard let stat = fresh ?? currentStat(of: pid, keepingOpen: true) else {
            if let known = remove(pid) { carried.removed.append(known) }
            return nil
        }
        let gaps = eventGaps
        let (sameProcess, noExecutionMissed) = withEntry(at: index) {
            ($0.stat.startTime == stat.startTime, $0.eventGaps == gaps)
        }
        if sameProcess {
            if events != nil, noExecutionMissed {
                return withEntry(at: index) { entry in
                    entry.stat = stat
                    return entry
                }
            }
            if Self.executable(procRoot: procRoot, pid: pid) == withEntry(at: index, { $0.executable }) {
                return withEntry(at: index) { entry in
                    entry.stat = stat
                    entry.eventGaps = gaps
                    return entry
                }
            }
        }
        let known = entries.values[index]
        carried.removed.append(known)
        guard var entry = readEntry(pid) else {
            remove(pid)
            return nil
        }
        entry.generation = known.generation
        store(entry)
        carried.added.append(pid)
        return entry
    }

    /// Reads the cgroup of `pid` again and keeps it; returns whether it changed. For the few processes a shield holds
    /// in a frozen cgroup of their own: their owner may move them out of it (their service manager's tree is theirs
    /// to rearrange), and nothing else would tell.
    @discardableResult
    public func rereadControlGroup(of pid: ProcessID) -> Bool {
        guard let index = entries.index(forKey: pid) else { return false }
        // Through a thread that runs once the main thread has exited (it stays where it was when the rest moves), also
        // one whose main thread exited since it was read, or whose thread it was read through has ended.
        let thread = Self.readableThread(of: pid, stat: readStat(of: pid), procRoot: procRoot)
        if thread != entries.values[index].thread { withEntry(at: index) { $0.thread = thread } }
        guard
            let count = (ProcessEntry.folder(of: pid, thread: thread, in: procRoot) + "/cgroup").withCString({
                FileSystem.readGenerated($0, into: &buffer)
            })
        else { return false }
        let group = controlGroup(parsing: count)
        guard group != entries.values[index].controlGroup else { return false }
        withEntry(at: index) { $0.controlGroup = group }
        changeCount &+= 1
        return true
    }

    /// Runs `body` on the entry at `index` in place (reading through the dictionary's getter would copy the entry).
    private func withEntry<T>(at index: [ProcessID: ProcessEntry].Index, _ body: (inout ProcessEntry) -> T) -> T {
        body(&entries.values[index])
    }

    /// Stores the resolved app of a process.
    public func setApp(_ app: ResolvedApp, for pid: ProcessID) {
        guard let index = entries.index(forKey: pid) else { return }
        let old = withEntry(at: index) { entry in
            defer { entry.app = app }
            return entry.app
        }
        if let old, old.id != app.id { forgetApp(old.id, of: pid) }
        processIDsByApp[app.id, default: []].insert(pid)
        changeCount &+= 1
        if old?.source == .inherited || app.source == .inherited { inheritedRevision &+= 1 }
    }

    private func forgetApp(_ app: AppID, of pid: ProcessID) {
        processIDsByApp[app]?.remove(pid)
        if processIDsByApp[app]?.isEmpty == true { processIDsByApp[app] = nil }
    }

    private func store(_ entry: ProcessEntry) {
        changeCount &+= 1
        if let old = entries.updateValue(entry, forKey: entry.pid) {
            if old.user != entry.user { processIDsByUser[old.user]?.remove(entry.pid) }
            if let app = old.app, app.id != entry.app?.id { forgetApp(app.id, of: entry.pid) }
            if old.app?.source == .inherited { inheritedRevision &+= 1 }
        }
        if entry.app?.source == .inherited { inheritedRevision &+= 1 }
        processIDsByUser[entry.user, default: []].insert(entry.pid)
        if let app = entry.app { processIDsByApp[app.id, default: []].insert(entry.pid) }
        let name = entry.executable.map(baseName)
        if let name, ProgramResolver.isInterpreter(name) {
            interpreters.insert(entry.pid)
        } else {
            interpreters.remove(entry.pid)
        }
        if let name, AppResolver.isDynamicLoader(name), !loadsProgram(entry) {
            unloaded.insert(entry.pid)
        } else {
            unloaded.remove(entry.pid)
        }
        if entry.stat.runsWithoutItsMainThread {
            leaderless.insert(entry.pid)
        } else {
            leaderless.remove(entry.pid)
        }
    }

    /// Whether the process, which runs the dynamic loader, maps the program it loads.
    private func loadsProgram(_ entry: ProcessEntry) -> Bool {
        guard let loader = entry.executable else { return true }
        return AppResolver(procRoot: procRoot).loadedProgram(of: entry, loader: loader) != nil
    }

    @discardableResult
    private func remove(_ pid: ProcessID) -> ProcessEntry? {
        statFiles.close(pid)
        guard let entry = entries.removeValue(forKey: pid) else { return nil }
        interpreters.remove(pid)
        unloaded.remove(pid)
        leaderless.remove(pid)
        changeCount &+= 1
        processIDsByUser[entry.user]?.remove(pid)
        if processIDsByUser[entry.user]?.isEmpty == true { processIDsByUser[entry.user] = nil }
        if let app = entry.app { forgetApp(app.id, of: pid) }
        if entry.app?.source == .inherited { inheritedRevision &+= 1 }
        return entry
    }

    /// Reads what the table keeps of process `pid` now, without storing it. Nil when it is gone.
    func readEntry(_ pid: ProcessID) -> ProcessEntry? {
        let directory = "\(procRoot)/\(pid.rawValue)"
        // The process's folder is its effective uid's. Not its files: the kernel makes those of a process that isn't
        // dumpable root's, and any process can make itself so (`prctl(PR_SET_DUMPABLE, 0)`, from a preloaded library),
        // as is one whose main thread has exited.
        guard let status = FileSystem.status(directory), let stat = readStat(of: pid) else { return nil }
        let uid = UserID(status.st_uid)
        if stat.pid.rawValue == 2 || stat.parent.rawValue == 2 {
            return ProcessEntry(
                stat: stat, user: uid, executable: nil, arguments: [], controlGroup: nil, app: nil, generation: 0,
                eventGaps: eventGaps)
        }
        let program = Self.program(procRoot: procRoot, pid: pid)
        let executable = program?.executable
        let programFolder = ProcessEntry.folder(of: pid, thread: program?.thread, in: procRoot)
        let user = sessionUsers.contains(uid) ? uid : ProcessOwner.user(ofProcessIn: programFolder, runningAs: uid)
        // The command line matters only for interpreters (their script is the program), the dynamic loader (its
        // program) and when the executable can't be read; skipping it elsewhere saves a third of a cold scan.
        var arguments: [String] = []
        if executable.map(baseName).map({ ProgramResolver.isInterpreter($0) || AppResolver.isDynamicLoader($0) })
            ?? true,
            let count = (programFolder + "/cmdline").withCString({ FileSystem.read($0, into: &buffer) }), count > 0
        {
            arguments = buffer[..<count].split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            if arguments.last == "" { arguments.removeLast() }
        }
        let controlGroup = (programFolder + "/cgroup").withCString({ FileSystem.readGenerated($0, into: &buffer) })
            .flatMap(controlGroup(parsing:))
        return ProcessEntry(
            stat: stat, user: user, runsAsSubordinateID: user != uid, executable: executable, thread: program?.thread,
            arguments: arguments, controlGroup: controlGroup, app: nil, generation: 0, eventGaps: eventGaps)
    }

    /// The cgroup whose `/proc/PID/cgroup` text is the first `count` bytes of `buffer`. New processes are mostly in
    /// the few cgroups their parents are in: the last ones parsed are kept with their text, and comparing the text
    /// costs less than parsing it again.
    private func controlGroup(parsing count: Int) -> ControlGroup? {
        let hit = buffer.withUnsafeBytes { read in
            recentControlGroups.firstIndex { known in
                known.text.count == count
                    && known.text.withUnsafeBytes { memcmp($0.baseAddress!, read.baseAddress!, count) == 0 }
            }
        }
        if let hit { return recentControlGroups[hit].group }
        guard let group = ControlGroup(parsing: buffer[..<count]) else { return nil }
        if recentControlGroups.count == 8 { recentControlGroups.removeFirst() }
        recentControlGroups.append((Array(buffer[..<count]), group))
        return group
    }

    private var recentControlGroups: [(text: [UInt8], group: ControlGroup)] = []

    static func executable(procRoot: String, pid: ProcessID) -> String? {
        program(procRoot: procRoot, pid: pid)?.executable
    }

    /// The program `pid` runs, read from the process's own folder of `/proc` or, once its main thread has exited while
    /// other threads run on (`pthread_exit` in `main`, which a preloaded library can make any program do; its own
    /// `exe` and `cmdline` then read as nothing), from that of a thread that runs (`thread`): the first listed whose
    /// link reads, since one may end between the listing and the read.
    static func program(procRoot: String, pid: ProcessID) -> (executable: String, thread: Int32?)? {
        func executable(in folder: String, failure: inout Int32) -> String? {
            guard var target = FileSystem.readLink(folder + "/exe", failure: &failure) else { return nil }
            if target.hasSuffix(" (deleted)") { target.removeLast(10) }
            return target
        }
        let folder = ProcessEntry.folder(of: pid, thread: nil, in: procRoot)
        var failure: Int32 = 0
        if let target = executable(in: folder, failure: &failure) { return (target, nil) }
        // A link that isn't there (the main thread has exited, or the process) is looked for in a thread; one that
        // may not be read (another user's process) is not.
        guard failure == ENOENT else { return nil }
        var program: (executable: String, thread: Int32?)?
        FileSystem.forEachNumericEntry(folder + "/task") { thread in
            guard program == nil, thread != pid.rawValue,
                let target = executable(in: folder + "/task/\(thread)", failure: &failure)
            else { return }
            program = (target, thread)
        }
        return program
    }

    /// A thread of `pid` other than its main thread, if one is listed.
    static func runningThread(of pid: ProcessID, procRoot: String) -> Int32? {
        var thread: Int32?
        FileSystem.forEachNumericEntry("\(procRoot)/\(pid.rawValue)/task") { tid in
            if thread == nil, tid != pid.rawValue { thread = tid }
        }
        return thread
    }

    /// The thread to read process `pid` through now: nil for the process's own folder, or, once its main thread has
    /// exited while others run on (its state `Z`, more than one thread), one of those. Costs a read of its `stat`.
    public static func readableThread(of pid: ProcessID, procRoot: String = "/proc") -> Int32? {
        readableThread(of: pid, stat: ProcessStat.read(of: pid, procRoot: procRoot), procRoot: procRoot)
    }

    /// `readableThread(of:procRoot:)` with the process's `stat` already read.
    static func readableThread(of pid: ProcessID, stat: ProcessStat?, procRoot: String) -> Int32? {
        guard stat?.runsWithoutItsMainThread == true else { return nil }
        return runningThread(of: pid, procRoot: procRoot)
    }
}
