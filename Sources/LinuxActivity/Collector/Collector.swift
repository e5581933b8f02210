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
        /// Input idle longer than this makes a session idle where only raw idle time is known (tty atime, X11).
        public var idleTimeout: Duration = .seconds(180)
        /// Makes the focus source for a graphical session, or returns why there is none.
        /// Makes the focus source for a graphical session from the environment of one of its processes, or says why
        /// there is none (`DesktopFocus.factory` for the real desktops).
        public var focusSourceFactory: (@Sendable (SessionInfo, [String: String]) -> Result<any FocusSource, FocusUnavailable>)?
        public init() {}
    }

    /// Why a graphical session has no focus source; shown by `screentime now`.
    public struct FocusUnavailable: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    public let configuration: Configuration
    public let table: ProcessTable
    private let resolver: AppResolver
    private let logind: Logind?
    private let tokenizer: Tokenizer
    /// Why logind is not used, or nil.
    public let logindProblem: String?
    private var catalogs: [UserID: AppCatalog] = [:]
    private var focusSources: [SessionID: any FocusSource] = [:]
    private var focusProblems: [SessionID: (reason: String, retryAt: Duration)] = [:]
    private var terminalReaders: [UInt32: ProcessID] = [:]
    /// Each terminal's last foreground app and what it was derived from: the `stat` of the group's leader, read
    /// through the terminal, the process table's `changeCount` and `eventGaps`, and the catalog. While all four are
    /// the same the answer is too, and a steady tick reuses it.
    private var terminalAnswers:
        [UInt32: (stat: ProcessStat, tableChanges: UInt64, eventGaps: UInt32, catalog: ObjectIdentifier, app: AppInUse?)] =
            [:]
    private var terminalDevices: [String: UInt32] = [:]
    private let terminalAccessTimes: TerminalAccessTimes
    /// User names of the terminal sessions made up without logind (NSS reads `/etc/passwd` on each lookup).
    private var userNames: [UserID: String] = [:]
    private var accounted: [ProcessID: (key: CountKey, startTime: UInt64)] = [:]
    private var processCounts: [CountKey: Int] = [:] {
        didSet { countsVersion &+= 1 }
    }
    /// Bumped at each change of `processCounts`: what is derived from the counts alone is kept until it changes.
    private var countsVersion: UInt64 = 0
    private var membersCache: (version: UInt64, members: [MembershipScope: [UserID: [AppID: Int]]])?
    private var terminalSessionsCache: (version: UInt64, sessions: [SessionInfo])?
    /// The running apps of each session, derived from the process counts and the sessions.
    private var runningApps: (version: UInt64, apps: [SessionID: [RunningApp]])?
    /// The last snapshot and the sessions it was made for.
    private var lastSnapshot: ActivitySnapshot?
    private var lastSnapshotSessions: [SessionInfo] = []
    /// What the last tick read of each of those sessions.
    private var lastReadings: [SessionReading] = []
    /// Bumped each time `tick` returns a snapshot that differs from the one before: what a caller derived from a
    /// snapshot stays valid while this doesn't change.
    public private(set) var snapshotRevision: UInt64 = 0

    public init(configuration: Configuration = Configuration(), tokenizer: Tokenizer) {
        self.configuration = configuration
        self.tokenizer = tokenizer
        table = ProcessTable(procRoot: configuration.procRoot)
        resolver = AppResolver(procRoot: configuration.procRoot)
        terminalAccessTimes = TerminalAccessTimes(devRoot: configuration.devRoot)
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

    /// The catalog (desktop entries, overrides, tokens) of a user, built on first use.
    public func catalog(for user: UserID) -> AppCatalog {
        if let catalog = catalogs[user] { return catalog }
        let home = Logind.home(of: user)
        let environment = user.rawValue == getuid() ? ProcessInfo.processInfo.environment : [:]
        let overrides = (try? CategoryOverrides.load(home: home, environment: environment)) ?? CategoryOverrides()
        let catalog = AppCatalog(home: home, environment: environment, overrides: overrides, tokenizer: tokenizer)
        catalogs[user] = catalog
        return catalog
    }

    /// Samples everything once. `now` is the monotonic time (`CLOCK_MONOTONIC`), `wallNow` seconds since 1970; both
    /// come from the caller.
    public func tick(now: Duration, wallNow: Int64) -> ActivitySnapshot {
        let changes = table.refresh()
        for entry in changes.removed { unaccount(entry.pid, ifStartedAt: entry.stat.startTime) }
        for pid in changes.added {
            if table.entries[pid]?.app == nil { resolve(pid) }
            account(pid)
        }
        let sessions = logind?.sessions(now: now) ?? terminalSessions()
        let sessionsChanged = sessions != lastSnapshotSessions
        if sessionsChanged { forgetEndedSessions(sessions) }
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
            return UsageSample(user: session.user, session: session.id, presence: activity.presence, applicationsInUse: uses)
        }
        let snapshot = ActivitySnapshot(logind: logind != nil, notice: logindProblem, sessions: activities, samples: samples)
        lastSnapshot = snapshot
        lastSnapshotSessions = sessions
        snapshotRevision &+= 1
        return snapshot
    }

    /// Closes the focus sources of sessions that ended and forgets what was kept about them.
    private func forgetEndedSessions(_ sessions: [SessionInfo]) {
        terminalAnswers = [:]
        let live = Set(sessions.map(\.id))
        for (id, source) in focusSources where !live.contains(id) {
            source.close()
            focusSources[id] = nil
        }
        if focusProblems.keys.contains(where: { !live.contains($0) }) {
            focusProblems = focusProblems.filter { live.contains($0.key) }
        }
    }

    /// The apps running in each session: its own, the user manager's in the session that owns them, and (without
    /// logind) those on its terminal; sorted by name.
    private func runningApps(of sessions: [SessionInfo]) -> [SessionID: [RunningApp]] {
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
    private func members() -> [MembershipScope: [UserID: [AppID: Int]]] {
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
    private func account(_ pid: ProcessID) {
        unaccount(pid, ifStartedAt: nil)
        guard let entry = table.entries[pid], let app = entry.app, let group = entry.controlGroup else { return }
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

    private func unaccount(_ pid: ProcessID, ifStartedAt startTime: UInt64?) {
        guard let (key, started) = accounted[pid], startTime == nil || startTime == started else { return }
        accounted[pid] = nil
        processCounts[key, default: 0] -= 1
        if processCounts[key] == 0 { processCounts[key] = nil }
    }

    private func resolve(_ pid: ProcessID) {
        guard let entry = table.entries[pid] else { return }
        let parent = table.entries[entry.stat.parent]?.app
        if let app = resolver.resolve(entry, parent: parent, desktopEntries: catalog(for: entry.user).desktopEntries) {
            table.setApp(app, for: pid)
        }
    }

    /// Which session the apps a user manager starts belong to: the user's active graphical session, else the user's
    /// active session with a seat, else any active session of the user.
    private func userManagerSessions(_ sessions: [SessionInfo]) -> [UserID: SessionID] {
        var owners: [UserID: (SessionID, Int)] = [:]
        for session in sessions where session.sessionClass == .user {
            let rank = (session.active ? 4 : 0) + (session.isGraphical ? 2 : 0) + (session.seat != nil ? 1 : 0)
            if let current = owners[session.user], current.1 >= rank { continue }
            owners[session.user] = (session.id, rank)
        }
        return owners.mapValues(\.0)
    }

    /// What a tick reads of a session besides its logind record: the app in front, and whether input is idle.
    private struct SessionReading: Equatable {
        var focus = FocusKind.fallback
        var focusSource = "none"
        var idleSource: String
        var foreground: AppInUse?
        var idle: Bool
        var inhibited: Bool
    }

    private func read(_ session: SessionInfo, now: Duration, wallNow: Int64) -> SessionReading {
        let catalog = catalog(for: session.user)
        var focus = FocusKind.fallback
        var focusSourceName = "none"
        var foreground: AppInUse?
        var idleFromInput: Duration?
        var idleSource = logind != nil ? "logind" : "none"
        var inhibited = logind?.holdsIdleInhibitor(session.user) ?? false

        if !session.isGraphical, let tty = session.tty {
            focus = .terminal
            focusSourceName = "tty"
            foreground = terminalForeground(tty: tty, catalog: catalog)
            if let atime = terminalAccessTimes.accessTime(tty) {
                idleFromInput = .seconds(max(0, wallNow - atime))
                idleSource = logind != nil ? "logind+tty-atime" : "tty-atime"
            }
        } else if session.isGraphical {
            if let source = focusSource(for: session, now: now) {
                if let reading = source.current() {
                    focus = .window
                    focusSourceName = source.name
                    if let window = reading.window { foreground = windowForeground(window, catalog: catalog) }
                    if let idle = reading.idleTime {
                        idleFromInput = idle
                        idleSource += "+\(source.name)"
                    }
                    inhibited = inhibited || reading.idleInhibited
                } else {
                    source.close()
                    focusSources[session.id] = nil
                    focusProblems[session.id] = ("\(source.name) connection lost", now + .seconds(5))
                    focusSourceName = "\(source.name) connection lost"
                }
            } else {
                focusSourceName = focusProblems[session.id]?.reason ?? "no focus source"
            }
        }

        let idle =
            !inhibited && (session.idleHint || (idleFromInput.map { $0 >= configuration.idleTimeout } ?? false))
        return SessionReading(
            focus: focus, focusSource: focusSourceName, idleSource: idleSource, foreground: foreground, idle: idle,
            inhibited: inhibited)
    }

    private func activity(of session: SessionInfo, reading: SessionReading, running: [RunningApp]) -> SessionActivity {
        let presence: SessionPresence =
            session.lockedHint
            ? .locked : !session.active || session.state == "closing" ? .background : reading.idle ? .idle : .active
        return SessionActivity(
            id: session.id, user: session.user, userName: session.userName, type: session.type.rawValue,
            sessionClass: session.sessionClass.rawValue, state: session.state, seat: session.seat, tty: session.tty,
            display: session.display, leader: session.leader, remote: session.remote, desktop: session.desktop,
            active: session.active, idle: reading.idle, locked: session.lockedHint, idleInhibited: reading.inhibited,
            presence: presence, focus: reading.focus, focusSource: reading.focusSource, idleSource: reading.idleSource,
            foreground: reading.foreground, runningApps: running)
    }

    private func focusSource(for session: SessionInfo, now: Duration) -> (any FocusSource)? {
        if let source = focusSources[session.id] { return source }
        guard let factory = configuration.focusSourceFactory else {
            focusProblems[session.id] = ("no focus source configured", now)
            return nil
        }
        if let problem = focusProblems[session.id], now < problem.retryAt { return nil }
        switch factory(session, graphicalEnvironment(of: session)) {
        case .success(let source):
            focusSources[session.id] = source
            focusProblems[session.id] = nil
            return source
        case .failure(let unavailable):
            focusProblems[session.id] = (unavailable.reason, now + .seconds(10))
            return nil
        }
    }

    /// The environment of a process of the session that talks to its display (`DISPLAY`, `WAYLAND_DISPLAY` or
    /// `SWAYSOCK` set): the session leader is often root's login manager, whose environment says nothing of it.
    private func graphicalEnvironment(of session: SessionInfo) -> [String: String] {
        var tried = 0
        for entry in table.entries.values where entry.user == session.user && tried < 64 {
            guard let group = entry.controlGroup,
                group.sessionScope == session.id.rawValue || (group.isInUserManager && group.sliceOwner == session.user.rawValue)
            else { continue }
            tried += 1
            guard let environment = ProcessEnvironment.read(pid: entry.pid, procRoot: configuration.procRoot) else { continue }
            if environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil || environment["SWAYSOCK"] != nil {
                return environment
            }
        }
        return [:]
    }

    private func windowForeground(_ window: FocusedWindow, catalog: AppCatalog) -> AppInUse? {
        if let pid = window.pid, let entry = table.verify(pid) {
            if table.entries[pid]?.app == nil { resolve(pid) }
            if let app = table.entries[pid]?.app ?? entry.app {
                var resolved = app
                if app.source == .executable || app.source == .script, let windowClass = window.windowClass,
                    let desktopEntry = catalog.desktopEntries.entry(forWindowClass: windowClass)
                {
                    resolved = ResolvedApp(id: AppID(desktopEntry.id), source: .windowClass)
                }
                return appInUse(resolved, pid: pid, catalog: catalog)
            }
        }
        if let windowClass = window.windowClass {
            if let desktopEntry = catalog.desktopEntries.entry(forWindowClass: windowClass) {
                return appInUse(ResolvedApp(id: AppID(desktopEntry.id), source: .windowClass), pid: window.pid, catalog: catalog)
            }
            return appInUse(ResolvedApp(id: AppID(windowClass), source: .windowClass), pid: window.pid, catalog: catalog)
        }
        return nil
    }

    private func appInUse(_ app: ResolvedApp, pid: ProcessID?, catalog: AppCatalog) -> AppInUse {
        let label = catalog.label(for: app.id)
        return AppInUse(
            id: app.id, name: label.name, token: label.token, category: label.category,
            categoryToken: label.categoryToken, pid: pid, identifiedBy: app.source)
    }

    /// The app of a terminal's foreground process group: read `tpgid` from a process on that terminal, then the
    /// group's leader (or any member, if the leader has exited).
    private func terminalForeground(tty: String, catalog: AppCatalog) -> AppInUse? {
        guard let device = terminalDevice(tty) else { return nil }
        var stat: ProcessStat?
        if let reader = terminalReaders[device], let current = table.currentStat(of: reader, keepingOpen: true),
            current.terminal == device
        {
            stat = current
        } else {
            terminalReaders[device] = nil
            for entry in table.entries.values where entry.stat.terminal == device {
                if let current = table.currentStat(of: entry.pid), current.terminal == device {
                    terminalReaders[device] = entry.pid
                    stat = current
                    break
                }
            }
        }
        guard let stat, stat.terminalForegroundGroup > 0 else { return nil }
        // The process read is usually the foreground group's leader itself: nothing else needs reading then.
        guard stat.pid.rawValue == stat.terminalForegroundGroup else {
            return foregroundApp(group: stat.terminalForegroundGroup, catalog: catalog)
        }
        if let last = terminalAnswers[device], last.stat == stat, last.tableChanges == table.changeCount,
            last.eventGaps == table.eventGaps, last.catalog == ObjectIdentifier(catalog)
        {
            return last.app
        }
        let before = table.changeCount
        let app = foregroundApp(group: stat.terminalForegroundGroup, leaderStat: stat, catalog: catalog)
        // Kept only when the table stood still meanwhile (no refresh, no app resolved): then it is the answer.
        if table.changeCount == before {
            terminalAnswers[device] = (stat, before, table.eventGaps, ObjectIdentifier(catalog), app)
        }
        return app
    }

    /// The app of a foreground process group: its leader's (or, if the leader has exited, its first member's).
    /// `leaderStat` is the leader's `stat` when the caller has just read it.
    private func foregroundApp(group groupID: Int32, leaderStat: ProcessStat? = nil, catalog: AppCatalog) -> AppInUse? {
        var leader = table.verify(ProcessID(groupID), stat: leaderStat)
        if leader == nil {
            table.refresh()
            leader = table.entries.values.filter { $0.stat.processGroup == groupID }.min { $0.pid < $1.pid }
        }
        guard let leader else { return nil }
        if let app = leader.app { return appInUse(app, pid: leader.pid, catalog: catalog) }
        resolve(leader.pid)
        guard let app = table.entries[leader.pid]?.app else { return nil }
        return appInUse(app, pid: leader.pid, catalog: catalog)
    }

    /// The `tty_nr` encoding of `/proc/PID/stat` for a terminal name like `pts/3` or `tty2` (cached: a session keeps
    /// its terminal, and a reused name is the same device).
    private func terminalDevice(_ tty: String) -> UInt32? {
        if let device = terminalDevices[tty] { return device }
        guard let device = readTerminalDevice(tty) else { return nil }
        terminalDevices[tty] = device
        return device
    }

    private func readTerminalDevice(_ tty: String) -> UInt32? {
        guard let status = FileSystem.status("\(configuration.devRoot)/\(tty)"), (status.st_mode & S_IFMT) == S_IFCHR
        else { return nil }
        let device = UInt64(status.st_rdev)
        let major = UInt32(((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff))
        let minor = UInt32((device & 0xff) | ((device >> 12) & ~0xff))
        return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12)
    }

    /// Without logind: one pseudo-session per terminal that user processes hold, named `ttyN` by device number.
    private func terminalSessions() -> [SessionInfo] {
        if let cached = terminalSessionsCache, cached.version == countsVersion { return cached.sessions }
        var owners: [UInt32: UserID] = [:]
        for (key, count) in processCounts where count > 0 && key.user.rawValue != 0 {
            if case .terminal(let device) = key.scope { owners[device] = owners[device] ?? key.user }
        }
        for user in owners.values where userNames[user] == nil { userNames[user] = Logind.userName(of: user) }
        let sessions = owners.sorted { $0.key < $1.key }.map { device, user in
            let major = (device >> 8) & 0xfff
            let minor = (device & 0xff) | ((device >> 12) & 0xfff00)
            let tty = major == 136 ? "pts/\(minor)" : major == 4 ? "tty\(minor)" : nil
            return SessionInfo(
                id: SessionID("tty\(device)"), user: user, userName: userNames[user] ?? "", sessionClass: .user,
                type: .tty, state: "active", seat: nil, tty: tty, display: nil, leader: nil, remote: false,
                desktop: nil, active: true, idleHint: false, lockedHint: false)
        }
        terminalSessionsCache = (countsVersion, sessions)
        return sessions
    }
}
