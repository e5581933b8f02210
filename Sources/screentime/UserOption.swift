import ArgumentParser
import Foundation
import ScreenTimeDaemon
import ScreenTimeModel

/// `--user NAME`: whose data a report or an export reads.
///
/// Without it, the calling user's own store. With another user's name, the guardian (system) daemon's store, which
/// `screentimed --system` keeps for every user, and only for root: a person's use is theirs to see, and a limited
/// user must not read another's.
struct UserOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Another user's data, from the guardian daemon's store (root only).", valueName: "name"))
    var user: String?

    /// The user to report on and the daemon settings to read with; `daemon`'s options override the paths.
    func resolve(_ daemon: DaemonOptions) throws -> (UserID, DaemonSettings) {
        let caller = UserID(getuid())
        guard let user else { return (caller, daemon.settings) }
        guard let entry = getpwnam(user) else {
            printError(
                "screentime: no user named \"\(user)\" on this machine (--user takes a login name, as in /etc/passwd)")
            throw ExitCode(2)
        }
        let target = UserID(entry.pointee.pw_uid)
        if target == caller { return (caller, daemon.settings) }
        guard caller.rawValue == 0 else {
            let me = getpwuid(caller.rawValue).map { String(cString: $0.pointee.pw_name) } ?? "uid \(caller.rawValue)"
            printError(
                """
                screentime: only root may read another user's data: \(me) asked for \(user)'s. \
                A guardian runs it as root (sudo screentime … --user \(user)); \(user) can see their own data by \
                running it without --user.
                """)
            throw ExitCode(4)
        }
        var settings = DaemonSettings.defaults(system: true)
        if let database = daemon.database { settings.databasePath = database }
        if let policy = daemon.policy { settings.policyPath = policy }
        if let tokenKey = daemon.tokenKey { settings.tokenKeyPath = tokenKey }
        return (target, settings)
    }
}
