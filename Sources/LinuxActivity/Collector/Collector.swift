import FoundationEssentials
import Glibc
import ScreenTimeModel

/// Produces, at each tick, what every logind session is doing: presence, the app in front, the running apps, and a
/// `UsageSample` for the engine. Sources: sd-login and login1 over D-Bus (or terminals in /proc when logind is
/// absent), the process table, the terminal's foreground group for tty sessions, and focus sources for graphical ones.
///
/// Owned by one task; `tick` must not be called concurrently.
public final class Collector {
    /// Settings of the collector.
    public struct Configuration: Sendable {
        public var procRoot = "/proc"
        public var devRoot = "/dev"
        /// Input idle longer than this makes a session idle where only raw idle time is known (a terminal's access
        /// time, what the display servers tell).
        public var idleTimeout: Duration = .seconds(180)
        /// Makes the focus source for a graphical session from the environment of one of its processes, or says why
        /// there is none (`DesktopFocus.factory(limitedByGuardian:idleTimeout:)` for the real desktops).
        public var focusSourceFactory:
            (@Sendable (SessionInfo, [String: String]) -> Result<any FocusSource, FocusUnavailable>)?
        /// The environment the catalog of the user running the collector is made from (`XDG_DATA_HOME`,
        /// `XDG_DATA_DIRS`, `XDG_CONFIG_HOME`, the locale); nil for this process's own. Other users' catalogs use
        /// their home's defaults.
        public var environment: [String: String]?
        /// Whether the users watched are limited by someone else (a guardian): what they control then says nothing
        /// of which app runs — not the names of the scopes they start (`AppResolver.trustsUnitNames`), not their own
        /// desktop entries (`~/.local/share/applications`) or category overrides, with which a game could pass for
        /// an allowed app. Their catalogs hold the system's desktop entries alone.
        public var limitedByGuardian = false
        public init() {}
    }

    /// Why a graphical session has no focus source; shown by `screentime now`.
    public struct FocusUnavailable: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public let configuration: Configuration
    public let table: ProcessTable
    let resolver: AppResolver
    /// Programs known by their content (guardian mode): see `knowProgramsByContent(of:)`.
    let programContents: ProgramContents
    let logind: Logind?
    let tokenizer: Tokenizer
    /// Why logind is not used, or nil.
    public let logindProblem: String?
    var catalogs: [UserID: AppCatalog] = [:]
    /// Whose desktop entries changed since the last tick: their catalogs are made again.
    let desktopEntryWatch = DesktopEntryWatch()
    var focusSources: [SessionID: any FocusSource] = [:]
    var focusProblems: [SessionID: (reason: String, retryAt: Duration)] = [:]
    /// Whether each process looked at serves a display of its own, and when that was asked (`servesDisplay`).
    var displayServers: [ProcessIdentity: (serves: Bool, checkedAt: Duration)] = [:]
    /// The display server of each console session's own, as of a count of the table's changes and a time
    /// (`displayServer(of:now:)`).
    var consoleDisplayServers: [SessionID: (tableChanges: UInt64, checkedAt: Duration, server: ProcessID?)] = [:]
    /// The processes whose environment names no display (`graphicalEnvironment(of:)`).
    var environmentsWithoutDisplay: Set<ProcessIdentity> = []
    /// What each graphical session's environment says of its user's catalog, once read (`learnSessionEnvironments`),
    /// and when to look again for a session none of whose processes had a display yet.
    var sessionEnvironments: [SessionID: (user: UserID, environment: [String: String])] = [:]
    var sessionEnvironmentsRetry: [SessionID: Duration] = [:]
    var terminalReaders: [UInt32: ProcessID] = [:]
    /// Each terminal's last foreground app and what it was derived from: the `stat` of the group's leader, read
    /// through the terminal, the process table's `changeCount` and `eventGaps`, and the catalog. While all four are
    /// the same the answer is too, and a steady tick reuses it.
    var terminalAnswers:
        [UInt32: (
            stat: ProcessStat, tableChanges: UInt64, eventGaps: UInt32, catalog: ObjectIdentifier, app: AppInUse?
        )] =
            [:]
    var terminalDevices: [String: UInt32] = [:]
    let terminalAccessTimes: TerminalAccessTimes
    /// User names of the terminal sessions made up without logind (NSS reads `/etc/passwd` on each lookup).
    var userNames: [UserID: String] = [:]
    var accounted: [ProcessID: (key: CountKey, startTime: UInt64)] = [:]
    /// The cgroup of this process's own service when it runs as one in a user manager's `app.slice` (the user
    /// unit's default slice): what runs there is the daemon, never an app in use. Nil in a session's scope or
    /// outside a user manager, where the daemon's cgroup is shared with the user's apps.
    let ownServiceGroup: String?
    var processCounts: [CountKey: Int] = [:] {
        didSet { countsVersion &+= 1 }
    }
    /// Bumped at each change of `processCounts`: what is derived from the counts alone is kept until it changes.
    var countsVersion: UInt64 = 0
    var membersCache: (version: UInt64, members: [MembershipScope: [UserID: [AppID: Int]]])?
    var terminalSessionsCache: (version: UInt64, sessions: [SessionInfo])?
    /// The running apps of each session, derived from the process counts and the sessions.
    var runningApps: (version: UInt64, apps: [SessionID: [RunningApp]])?
    /// The last snapshot and the sessions it was made for.
    var lastSnapshot: ActivitySnapshot?
    var lastSnapshotSessions: [SessionInfo] = []
    /// What the last tick read of each of those sessions.
    var lastReadings: [SessionReading] = []
    /// Bumped each time `tick` returns a snapshot that differs from the one before: what a caller derived from a
    /// snapshot stays valid while this doesn't change.
    public private(set) var snapshotRevision: UInt64 = 0

    public init(configuration: Configuration = Configuration(), tokenizer: Tokenizer) {
        self.configuration = configuration
        self.tokenizer = tokenizer
        table = ProcessTable(procRoot: configuration.procRoot)
        resolver = AppResolver(procRoot: configuration.procRoot, trustsUnitNames: !configuration.limitedByGuardian)
        programContents = ProgramContents(procRoot: configuration.procRoot)
        terminalAccessTimes = TerminalAccessTimes(devRoot: configuration.devRoot)
        let own = (try? String(contentsOfFile: configuration.procRoot + "/self/cgroup", encoding: .utf8))
            .flatMap(ControlGroup.init(parsing:))
        ownServiceGroup = own.flatMap { $0.isInAppSlice && $0.sessionScope == nil ? $0.path : nil }
        if Logind.isAvailable {
            do {
                logind = try Logind()
                logindProblem = nil
            } catch {
                logind = nil
                logindProblem = "logind is not usable (\(error)); sessions are derived from terminals in /proc"
            }
        } else {
            logind = nil
            logindProblem = "systemd-logind is not running; sessions are derived from terminals in /proc"
        }
    }

    deinit { close() }

    /// Stops the focus sources' threads and closes their connections; a later `tick` opens them again.
    public func close() {
        for source in focusSources.values { source.close() }
        focusSources = [:]
    }

    /// The catalog (desktop entries, overrides, tokens) of a user, built on first use and again after a tick that
    /// saw their desktop entries change.
    public func catalog(for user: UserID) -> AppCatalog {
        if let catalog = catalogs[user] { return catalog }
        let (home, environment) = catalogSource(for: user)
        // Watched before the entries are read, so that an entry written meanwhile is not missed.
        desktopEntryWatch.watch(
            dataDirectories: DesktopEntryIndex.dataDirectories(home: home, environment: environment), for: user)
        let overrides = (try? CategoryOverrides.load(home: home, environment: environment)) ?? CategoryOverrides()
        let catalog = AppCatalog(home: home, environment: environment, overrides: overrides, tokenizer: tokenizer)
        catalogs[user] = catalog
        return catalog
    }

    /// Reads the processes that started, ran a new program or ended since the last refresh, and resolves the new
    /// ones' apps: what a tick does first, and what the daemon does between ticks when a shielded app may have
    /// started.
    public func refreshProcesses() {
        let changes = table.refresh()
        for entry in changes.removed { unaccount(entry.pid, ifStartedAt: entry.stat.startTime) }
        for pid in changes.added {
            if table.entries[pid]?.app == nil { resolve(pid) }
            account(pid)
        }
        recalledApps = [:]
    }

    /// The apps an earlier run knew processes as, for the first reading of the processes (`recall(_:)`).
    var recalledApps: [ProcessIdentity: RecalledApp] = [:]

    /// Samples everything once. `now` is the monotonic time (`CLOCK_MONOTONIC`), `wallNow` seconds since 1970; both
    /// come from the caller.
    public func tick(now: Duration, wallNow: Int64) -> ActivitySnapshot {
        let changedEntries = desktopEntryWatch.changedUsers()
        if !changedEntries.isEmpty { forgetCatalogs(of: changedEntries) }
        refreshProcesses()
        let sessions = logind?.sessions(now: now) ?? terminalSessions()
        let sessionsChanged = sessions != lastSnapshotSessions
        if sessionsChanged {
            forgetEndedSessions(sessions)
            table.sessionUsers = Set(sessions.map(\.user))
        }
        learnSessionEnvironments(sessions, now: now)
        let runningChanged = runningApps?.version != countsVersion || sessionsChanged
        if runningChanged { runningApps = (countsVersion, runningApps(of: sessions)) }

        // A steady tick sees what the last one saw: its snapshot is returned again, and nothing new is allocated. A
        // session whose reading, running apps and logind record are those of the last tick has the same activity,
        // which isn't made again.
        let readingsHold = !runningChanged && lastReadings.count == sessions.count && lastSnapshot != nil
        if !readingsHold { lastReadings.removeAll(keepingCapacity: true) }
        var fresh: [SessionActivity]?
        for (index, session) in sessions.enumerated() {
            let reading = read(session, now: now, wallNow: wallNow)
            if readingsHold, let last = lastSnapshot, lastReadings[index] == reading {
                fresh?.append(last.sessions[index])
                continue
            }
            if readingsHold { lastReadings[index] = reading } else { lastReadings.append(reading) }
            let activity = self.activity(of: session, reading: reading, running: runningApps?.apps[session.id] ?? [])
            if fresh == nil, !sessionsChanged, let last = lastSnapshot, last.sessions[index] == activity { continue }
            if fresh == nil { fresh = Array((lastSnapshot?.sessions ?? []).prefix(sessionsChanged ? 0 : index)) }
            fresh?.append(activity)
        }
        if let lastSnapshot, fresh == nil, !sessionsChanged { return lastSnapshot }
        let activities = fresh ?? []
        let samples = zip(sessions, activities).map { session, activity in
            let uses: [AppUse]
            switch activity.focus {
            case .terminal, .window:
                uses = activity.foreground.map { [AppUse(application: $0.token, category: $0.categoryToken)] } ?? []
            case .fallback:
                let catalog = catalog(for: session.user)
                uses = activity.runningApps.map {
                    AppUse(application: $0.token, category: catalog.label(for: $0.id).categoryToken)
                }
            }
            return UsageSample(
                user: session.user, session: session.id, presence: activity.presence, applicationsInUse: uses)
        }
        let snapshot = ActivitySnapshot(
            logind: logind != nil, notice: logindProblem, sessions: activities, samples: samples)
        lastSnapshot = snapshot
        lastSnapshotSessions = sessions
        snapshotRevision &+= 1
        return snapshot
    }

    /// Drops the catalogs of `users`, whose desktop entries changed, and resolves their processes again against the
    /// new ones (a running program may now have an entry, or have lost it), parents before children.
    func forgetCatalogs(of users: Set<UserID>) {
        for user in users { catalogs[user] = nil }
        runningApps = nil
        terminalAnswers = [:]
        let processes = users.flatMap { table.processIDsByUser[$0] ?? [] }.compactMap { table.entries[$0] }
        for entry in processes.sorted(by: { ($0.stat.startTime, $0.pid) < ($1.stat.startTime, $1.pid) }) {
            resolve(entry.pid)
            account(entry.pid)
        }
    }

    /// Closes the focus sources of sessions that ended and forgets what was kept about them.
    func forgetEndedSessions(_ sessions: [SessionInfo]) {
        terminalAnswers = [:]
        let live = Set(sessions.map(\.id))
        for (id, source) in focusSources where !live.contains(id) {
            source.close()
            focusSources[id] = nil
        }
        if focusProblems.keys.contains(where: { !live.contains($0) }) {
            focusProblems = focusProblems.filter { live.contains($0.key) }
        }
        sessionEnvironments = sessionEnvironments.filter { live.contains($0.key) }
        sessionEnvironmentsRetry = sessionEnvironmentsRetry.filter { live.contains($0.key) }
        if consoleDisplayServers.keys.contains(where: { !live.contains($0) }) {
            consoleDisplayServers = consoleDisplayServers.filter { live.contains($0.key) }
        }
    }

    /// The apps running in each session: its own, the user manager's in the session that owns them, and (without
    /// logind) those on its terminal; sorted by name.
    func runningApps(of sessions: [SessionInfo]) -> [SessionID: [RunningApp]] {
        let members = self.members()
        let appOwners = userManagerSessions(sessions)
        var running: [SessionID: [RunningApp]] = [:]
        for session in sessions {
            var counts = members[.session(session.id)]?[session.user] ?? [:]
            if appOwners[session.user] == session.id {
                counts.merge(members[.userApps(session.user)]?[session.user] ?? [:], uniquingKeysWith: +)
            }
            if logind == nil, let device = session.tty.flatMap(terminalDevice) {
                counts.merge(members[.terminal(device)]?[session.user] ?? [:], uniquingKeysWith: +)
            }
            let catalog = catalog(for: session.user)
            running[session.id] = counts.map { id, count in
                let label = catalog.label(for: id)
                let app = RunningApp(
                    id: id, name: label.name, token: label.token, category: label.category, processCount: count)
                return (key: label.name.lowercased(), app: app)
            }.sorted { ($0.key, $0.app.id) < ($1.key, $1.app.id) }.map(\.app)
        }
        return running
    }

    /// The running-app counts by where they count, then user.
    func members() -> [MembershipScope: [UserID: [AppID: Int]]] {
        if let cached = membersCache, cached.version == countsVersion { return cached.members }
        var members: [MembershipScope: [UserID: [AppID: Int]]] = [:]
        for (key, count) in processCounts where count > 0 {
            members[key.scope, default: [:]][key.user, default: [:]][key.app] = count
        }
        membersCache = (countsVersion, members)
        return members
    }

    /// Where a process's app is counted: a logind session's scope, a user manager's apps (shown in the user's main
    /// session), or a terminal (without logind).
    enum MembershipScope: Hashable {
        case session(SessionID)
        case userApps(UserID)
        case terminal(UInt32)
    }

    struct CountKey: Hashable {
        var scope: MembershipScope
        var user: UserID
        var app: AppID
    }

    /// Adds a resolved process to the running-app counts (maintained incrementally, so a tick costs nothing per
    /// unchanged process).
    func account(_ pid: ProcessID) {
        unaccount(pid, ifStartedAt: nil)
        guard let entry = table.entries[pid], let app = entry.app, let group = entry.controlGroup,
            group.path != ownServiceGroup
        else { return }
        let scope: MembershipScope
        if let session = group.sessionScope {
            scope = .session(SessionID(session))
        } else if group.isInAppSlice, let owner = group.sliceOwner {
            scope = .userApps(UserID(owner))
        } else if logind == nil, entry.stat.terminal != 0 {
            scope = .terminal(entry.stat.terminal)
        } else {
            return
        }
        let key = CountKey(scope: scope, user: entry.user, app: app.id)
        accounted[pid] = (key, entry.stat.startTime)
        processCounts[key, default: 0] += 1
    }

    func unaccount(_ pid: ProcessID, ifStartedAt startTime: UInt64?) {
        guard let (key, started) = accounted[pid], startTime == nil || startTime == started else { return }
        accounted[pid] = nil
        processCounts[key, default: 0] -= 1
        if processCounts[key] == 0 { processCounts[key] = nil }
    }

    func resolve(_ pid: ProcessID) {
        guard let entry = table.entries[pid] else { return }
        let parent = table.entries[entry.stat.parent]?.app
        let desktopEntries = catalog(for: entry.user).desktopEntries
        var app = resolver.resolve(entry, parent: parent, desktopEntries: desktopEntries)
        // Inherited as before (before a restart, or before this reading: its parent may be gone since), with the
        // checks any inheritance has (a guardian's limited user's own program inherits nothing).
        let inherited = recalledApp(of: entry) ?? entry.app.flatMap { $0.source == .inherited ? $0.id : nil }
        if let inherited, app?.id != inherited, !(app?.source.isInherited ?? false) {
            app =
                resolver.resolve(
                    entry, parent: ResolvedApp(id: inherited, source: .inherited), desktopEntries: desktopEntries)
                ?? app
        }
        if let app { table.setApp(programContents.check(app, process: entry), for: pid) }
    }

    /// Knows `apps` by their programs' content too: a copy of one's executable under another name, or a hard link to
    /// it, is that app. For a guardian, whose limited users control names but not contents. The processes running
    /// now are looked at again.
    public func knowProgramsByContent(of apps: Set<AppID>) {
        guard apps != programContents.watched else { return }
        programContents.watched = apps
        guard !apps.isEmpty else { return }
        let running = table.entries.values.compactMap { entry in entry.app.map { (app: $0, entry: entry) } }
        // The watched apps' programs first, then everything known only by its executable's name or its parent's app.
        for process in running where apps.contains(process.app.id) {
            _ = programContents.check(process.app, process: process.entry)
        }
        for process in running
        where (process.app.source == .executable || process.app.source == .inherited)
            && !apps.contains(process.app.id)
        {
            let checked = programContents.check(process.app, process: process.entry)
            if checked != process.app {
                table.setApp(checked, for: process.entry.pid)
                account(process.entry.pid)
            }
        }
    }

    /// Which session the apps a user manager starts belong to: the user's active graphical session, else the user's
    /// active session with a seat, else any active session of the user.
    func userManagerSessions(_ sessions: [SessionInfo]) -> [UserID: SessionID] {
        var owners: [UserID: (SessionID, Int)] = [:]
        for session in sessions where session.sessionClass == .user {
            let rank = (session.active ? 4 : 0) + (session.isGraphical ? 2 : 0) + (session.seat != nil ? 1 : 0)
            if let current = owners[session.user], current.1 >= rank { continue }
            owners[session.user] = (session.id, rank)
        }
        return owners.mapValues(\.0)
    }
}
