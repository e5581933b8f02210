import FoundationEssentials
import Glibc
import ScreenTimeModel

extension Collector {
    /// The home and environment a user's catalog is made from: this process's environment for its own user, their
    /// home's defaults for another; with the folders their graphical sessions' `XDG_DATA_DIRS` name searched first.
    /// A guardian's limited user has neither: their catalog holds the system's desktop entries alone.
    func catalogSource(for user: UserID) -> (home: String?, environment: [String: String]) {
        guard !configuration.limitedByGuardian else { return (nil, [:]) }
        var environment =
            user.rawValue == getuid() ? configuration.environment ?? ProcessInfo.processInfo.environment : [:]
        let folders = sessionDataFolders.sorted { $0.key < $1.key }.filter { $0.value.user == user }
            .flatMap(\.value.folders)
        if !folders.isEmpty {
            environment["XDG_DATA_DIRS"] = DesktopEntryIndex.dataDirs(
                sessionFolders: folders, then: environment["XDG_DATA_DIRS"])
        }
        return (Logind.home(of: user), environment)
    }

    /// Reads, once for each graphical session, the folders its `XDG_DATA_DIRS` names: a desktop session sets them
    /// after the user's service manager (and a daemon it started with the user's login) took its environment, so
    /// the apps installed there (a desktop's own folder, Nix's or Guix's profile) would otherwise be known by file
    /// name only. A catalog that doesn't search them yet is made again. Never for a guardian's limited users, whose
    /// environment would let them name a folder of their own.
    func learnSessionDataFolders(_ sessions: [SessionInfo], now: Duration) {
        guard !configuration.limitedByGuardian else { return }
        var users: Set<UserID> = []
        // Another user's environment is theirs to read (and root's).
        let readable = { (user: UserID) in getuid() == 0 || user.rawValue == getuid() }
        for session in sessions
        where session.isGraphical && sessionDataFolders[session.id] == nil && readable(session.user) {
            if let retry = sessionDataFoldersRetry[session.id], now < retry { continue }
            let environment = graphicalEnvironment(of: session)
            guard !environment.isEmpty else {
                sessionDataFoldersRetry[session.id] = now + .seconds(10)
                continue
            }
            sessionDataFoldersRetry[session.id] = nil
            // A session that sets none says nothing (the default is what the catalog searches without it).
            let dataDirs = environment["XDG_DATA_DIRS"] ?? ""
            sessionDataFolders[session.id] = (
                session.user, dataDirs.isEmpty ? [] : DesktopEntryIndex.absoluteFolders(of: dataDirs)
            )
            users.insert(session.user)
        }
        guard !users.isEmpty else { return }
        let stale = users.filter { user in
            guard let built = catalogs[user]?.desktopEntries.dataDirectories else { return false }
            let (home, environment) = catalogSource(for: user)
            return DesktopEntryIndex.dataDirectories(home: home, environment: environment) != built
        }
        if !stale.isEmpty { forgetCatalogs(of: stale) }
    }
}
