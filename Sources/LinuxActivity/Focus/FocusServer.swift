import ScreenTimeModel

/// The process that tells a focus source which window is in front (sway on its socket, GNOME Shell or KWin on the
/// session bus), and what makes it believed. The socket's path and the bus are the session user's: any program of
/// theirs could listen there, or own a desktop's bus name where that desktop doesn't run, and report a window of its
/// choice as the focused one.
enum FocusServer {
    /// The program of process `pid`, when it is named one of `names` and only root can change it (the system's
    /// compositor, not a copy or a look-alike of the user's). `serving` says what the process serves, for the error.
    @discardableResult
    static func checkProgram(of pid: ProcessID, isOneOf names: Set<String>, serving: String, procRoot: String = "/proc")
        throws(FocusSourceError) -> String
    {
        let program = ProcessTable.executable(procRoot: procRoot, pid: pid)
        guard let program, names.contains(baseName(program)), FileSystem.isRootsAlone(program) else {
            let expected = names.sorted().joined(separator: " or ")
            throw FocusSourceError(
                .unsupported,
                "\(serving) is served by \(program ?? "process \(pid.rawValue)"), not by a \(expected) only root "
                    + "can change")
        }
        return program
    }

    /// Throws unless the connection `connection` on `bus`, which owns the well-known `name`, is a process running a
    /// program named one of `names` that only root can change (`checkProgram`); returns that process.
    @discardableResult
    static func checkConnection(_ connection: String, owning name: String, on bus: Bus, runs names: Set<String>)
        throws(FocusSourceError) -> ProcessID
    {
        guard let pid = bus.processID(ofConnection: connection, timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(.connectionFailed, "cannot tell which process owns \(name)")
        }
        try checkProgram(of: pid, isOneOf: names, serving: "\(name) on the session bus")
        return pid
    }

    /// For a guardian's limited user: throws unless process `pid` is the compositor of `session`: a process of the
    /// session's scope (`session-ID.scope`, root's) that its leader (the login, or the display manager's worker)
    /// started, through no process running one of `names`. A compositor the user runs nested in a window of their
    /// desktop is elsewhere: in GNOME, in the terminal's cgroup; in sway, in the session's scope but no longer below
    /// its leader (sway's `exec` and the terminals it starts leave it), or below the session's own sway.
    static func checkIsSessionsOwn(
        _ pid: ProcessID, session: SessionCompositor, names: Set<String>, serving: String, procRoot: String = "/proc"
    ) throws(FocusSourceError) {
        let cgroup = FileSystem.readBytes("\(procRoot)/\(pid.rawValue)/cgroup").flatMap {
            ControlGroup(parsing: $0[...])
        }
        guard cgroup?.sessionScope == session.id else {
            throw FocusSourceError(
                .unsupported,
                "\(serving) is served by process \(pid.rawValue) outside session \(session.id)'s scope "
                    + "(\(cgroup?.path ?? "no cgroup")): not the session's compositor, but one its user started")
        }
        var ancestor = parent(of: pid, procRoot: procRoot)
        for _ in 0..<64 {
            guard let current = ancestor, current.rawValue > 1 else { break }
            if current == session.leader { return }
            if let program = ProcessTable.executable(procRoot: procRoot, pid: current),
                names.contains(baseName(program))
            {
                throw FocusSourceError(
                    .unsupported,
                    "\(serving) is served by process \(pid.rawValue), nested in \(program) (process "
                        + "\(current.rawValue)): not the session's compositor, but one its user started in it")
            }
            ancestor = parent(of: current, procRoot: procRoot)
        }
        throw FocusSourceError(
            .unsupported,
            "\(serving) is served by process \(pid.rawValue), which session \(session.id)'s leader (process "
                + "\(session.leader.map { "\($0.rawValue)" } ?? "unknown")) did not start: not the session's "
                + "compositor, but one its user started")
    }

    private static func parent(of pid: ProcessID, procRoot: String) -> ProcessID? {
        ProcessStat.read(of: pid, procRoot: procRoot)?.parent
    }
}

/// The logind session whose own compositor a focus source's server must be, for a guardian's limited user
/// (`FocusServer.checkIsSessionsOwn`).
public struct SessionCompositor: Sendable, Hashable {
    /// logind's id of the session.
    public var id: String
    /// The session's leader (logind's `Leader`); nil when unknown, and then no compositor is the session's.
    public var leader: ProcessID?

    public init(id: String, leader: ProcessID?) {
        self.id = id
        self.leader = leader
    }
}
