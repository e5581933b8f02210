import FoundationEssentials
import Glibc
import ScreenTimeModel

extension Collector {
    /// What a tick reads of a session besides its logind record: the app in front, and whether input is idle.
    struct SessionReading: Equatable {
        var focus = FocusKind.fallback
        var focusSource = "none"
        var idleSource: String
        var foreground: AppInUse?
        var idle: Bool
        var locked: Bool
        var inhibited: Bool
    }

    func read(_ session: SessionInfo, now: Duration, wallNow: Int64) -> SessionReading {
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
            if configuration.limitedByGuardian, let server = displayServer(of: session, now: now) {
                // A desktop started from the console (`sway`, `startx`): logind still calls the session a tty one,
                // and what runs on that desktop is not seen, so every app of the session counts.
                focus = .fallback
                focusSourceName = "tty, with a display server in front (process \(server.rawValue))"
                foreground = nil
            }
            if let atime = terminalAccessTimes.accessTime(tty) {
                idleFromInput = .seconds(max(0, wallNow - atime))
                idleSource = logind != nil ? "logind+tty-atime" : "tty-atime"
            }
        } else if session.isGraphical {
            if let source = focusSource(for: session, now: now) {
                if let reading = source.current() {
                    focus = .window
                    focusSourceName = source.name
                    if !reading.seesFocus {
                        // The source measures idle time alone: every app of the session counts.
                        focus = .fallback
                    } else if configuration.limitedByGuardian, let pid = reading.window?.pid,
                        let process = table.verify(pid)?.identity, servesDisplay(process, now: now)
                    {
                        // A compositor or X server of the user's in a window (a nested sway, Xephyr): what they
                        // play in it is not seen, so every app of the session counts.
                        focus = .fallback
                        focusSourceName = "\(source.name), with a display server in front (process \(pid.rawValue))"
                    } else if let window = reading.window {
                        foreground = windowForeground(window, catalog: catalog)
                    }
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

        // logind's idle and locked hints are the session's owner's to set (`SetIdleHint`, `SetLockedHint`): for a
        // guardian's limited user they count for nothing. Idle is then what the display server or the terminal
        // measures (a locked screen's input idle time grows past the idle timeout), and a session where nothing
        // measures input counts while it is active.
        let believesHints = !configuration.limitedByGuardian
        let idle =
            !inhibited
            && ((believesHints && session.idleHint)
                || (idleFromInput.map { $0 >= configuration.idleTimeout } ?? false))
        return SessionReading(
            focus: focus, focusSource: focusSourceName, idleSource: idleSource, foreground: foreground, idle: idle,
            locked: believesHints && session.lockedHint, inhibited: inhibited)
    }

    func activity(of session: SessionInfo, reading: SessionReading, running: [RunningApp]) -> SessionActivity {
        let presence: SessionPresence =
            reading.locked
            ? .locked : !session.active || session.state == "closing" ? .background : reading.idle ? .idle : .active
        return SessionActivity(
            id: session.id, user: session.user, userName: session.userName, type: session.type.rawValue,
            sessionClass: session.sessionClass.rawValue, state: session.state, seat: session.seat, tty: session.tty,
            display: session.display, leader: session.leader, remote: session.remote, desktop: session.desktop,
            active: session.active, idle: reading.idle, locked: reading.locked, idleInhibited: reading.inhibited,
            presence: presence, focus: reading.focus, focusSource: reading.focusSource, idleSource: reading.idleSource,
            foreground: reading.foreground, runningApps: running)
    }

    func focusSource(for session: SessionInfo, now: Duration) -> (any FocusSource)? {
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

    /// Whether the process `process` serves a display of its own (`DisplayServer`): known for good once it does;
    /// asked again at most every 10 s while it does not (a server binds its socket a moment after it starts).
    /// `listening`, when given, reads the display sockets listening in its network namespace (once for several).
    func servesDisplay(
        _ process: ProcessIdentity, now: Duration, listening: (() -> Set<Substring>)? = nil
    ) -> Bool {
        if let known = displayServers[process], known.serves || now < known.checkedAt + .seconds(10) {
            return known.serves
        }
        if displayServers.count > 64 {
            displayServers = displayServers.filter { table.entries[$0.key.pid]?.identity == $0.key }
        }
        let serves = DisplayServer.serves(process.pid, procRoot: configuration.procRoot, listening: listening)
        displayServers[process] = (serves, now)
        return serves
    }

    /// A process of the console session `session`'s own scope that serves a display of its own: a desktop started
    /// at a login prompt (`sway`, `startx`), which a compositor or an X server can only be as a process of the
    /// session (it takes the session's seat devices through logind). Looked for again when the process table has
    /// changed, or 10 s on.
    func displayServer(of session: SessionInfo, now: Duration) -> ProcessID? {
        if let last = consoleDisplayServers[session.id], last.tableChanges == table.changeCount,
            now < last.checkedAt + .seconds(10)
        {
            return last.server
        }
        let own = (table.processIDsByUser[session.user] ?? []).compactMap { table.entries[$0] }
            .filter { $0.controlGroup?.sessionScope == session.id.rawValue }.map(\.identity)
        var listening: Set<Substring>?
        let server =
            own.first { displayServers[$0]?.serves == true }
            ?? own.first { process in
                servesDisplay(process, now: now) {
                    if let listening { return listening }
                    let read = DisplayServer.listeningSockets(
                        seenBy: process.pid, procRoot: self.configuration.procRoot)
                    listening = read
                    return read
                }
            }
        consoleDisplayServers[session.id] = (table.changeCount, now, server?.pid)
        return server?.pid
    }

    /// The environment of a process of the session that talks to its display (`DISPLAY`, `WAYLAND_DISPLAY` or
    /// `SWAYSOCK` set): the session leader is often root's login manager, whose environment says nothing of it.
    ///
    /// A process's environment is the one it started with: one read without a display is not read again (while no
    /// focus source can be made, this runs every few seconds, among the user's many processes).
    func graphicalEnvironment(of session: SessionInfo) -> [String: String] {
        environmentsWithoutDisplay = environmentsWithoutDisplay.filter {
            table.entries[$0.pid]?.stat.startTime == $0.startTime
        }
        // The session's own processes first (a handful, the display's among them where a session runs in its scope),
        // then the user manager's (a desktop that runs as services: GNOME's shell, and the apps it starts), among
        // which a user's other services may be many.
        let own = (table.processIDsByUser[session.user] ?? []).compactMap { table.entries[$0] }
        let inScope = own.filter { $0.controlGroup?.sessionScope == session.id.rawValue }
        let inManager = own.filter { entry in
            entry.controlGroup.map { $0.isInUserManager && $0.sliceOwner == session.user.rawValue } ?? false
        }
        var tried = 0
        for entry in inScope + inManager where tried < 64 && !environmentsWithoutDisplay.contains(entry.identity) {
            tried += 1
            guard let environment = ProcessEnvironment.read(pid: entry.pid, procRoot: configuration.procRoot) else {
                continue
            }
            if environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil || environment["SWAYSOCK"] != nil
            {
                return environment
            }
            environmentsWithoutDisplay.insert(entry.identity)
        }
        return [:]
    }

    func windowForeground(_ window: FocusedWindow, catalog: AppCatalog) -> AppInUse? {
        if let pid = window.pid, let entry = table.verify(pid) {
            if table.entries[pid]?.app == nil { resolve(pid) }
            if let app = table.entries[pid]?.app ?? entry.app {
                var resolved = app
                // The window's class names the app of a program known only by its file name; not for a guardian,
                // whose limited user picks the class (a game's window can call itself the calculator).
                if !configuration.limitedByGuardian, app.source == .executable || app.source == .script,
                    let windowClass = window.windowClass,
                    let desktopEntry = catalog.desktopEntries.entry(forWindowClass: windowClass)
                {
                    resolved = ResolvedApp(id: AppID(desktopEntry.id), source: .windowClass)
                }
                return appInUse(resolved, pid: pid, catalog: catalog)
            }
        }
        if let windowClass = window.windowClass {
            if let desktopEntry = catalog.desktopEntries.entry(forWindowClass: windowClass) {
                return appInUse(
                    ResolvedApp(id: AppID(desktopEntry.id), source: .windowClass), pid: window.pid, catalog: catalog)
            }
            return appInUse(
                ResolvedApp(id: AppID(windowClass), source: .windowClass), pid: window.pid, catalog: catalog)
        }
        return nil
    }

    func appInUse(_ app: ResolvedApp, pid: ProcessID?, catalog: AppCatalog) -> AppInUse {
        let label = catalog.label(for: app.id)
        return AppInUse(
            id: app.id, name: label.name, token: label.token, category: label.category,
            categoryToken: label.categoryToken, pid: pid, identifiedBy: app.source)
    }
}
