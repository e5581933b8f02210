import FoundationEssentials
import Glibc
import ScreenTimeModel

extension Collector {
    /// The app of a terminal's foreground process group: read `tpgid` from a process on that terminal, then the
    /// group's leader (or any member, if the leader has exited).
    func terminalForeground(tty: String, catalog: AppCatalog) -> AppInUse? {
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
    func foregroundApp(group groupID: Int32, leaderStat: ProcessStat? = nil, catalog: AppCatalog) -> AppInUse? {
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
    func terminalDevice(_ tty: String) -> UInt32? {
        if let device = terminalDevices[tty] { return device }
        guard let device = readTerminalDevice(tty) else { return nil }
        terminalDevices[tty] = device
        return device
    }

    func readTerminalDevice(_ tty: String) -> UInt32? {
        guard let status = FileSystem.status("\(configuration.devRoot)/\(tty)"), (status.st_mode & S_IFMT) == S_IFCHR
        else { return nil }
        let device = UInt64(status.st_rdev)
        let major = UInt32(((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff))
        let minor = UInt32((device & 0xff) | ((device >> 12) & ~0xff))
        return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12)
    }

    /// Without logind: one pseudo-session per terminal that user processes hold, named `ttyN` by device number.
    func terminalSessions() -> [SessionInfo] {
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
