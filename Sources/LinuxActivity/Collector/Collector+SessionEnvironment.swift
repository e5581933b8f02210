import FoundationEssentials
import Glibc
import ScreenTimeModel

extension Collector {
    /// What a desktop session's environment says of its user's catalog: the data folders it names and its locale.
    static let sessionCatalogKeys = Set(AppCatalog.localeVariables + ["XDG_DATA_DIRS"])

    /// The home and environment a user's catalog is made from: this process's environment for its own user, their
    /// home's defaults for another; with the folders their graphical sessions' `XDG_DATA_DIRS` name searched first,
    /// and the locale of the first of those sessions that sets one. A guardian's limited user has neither: their
    /// catalog holds the system's desktop entries alone.
    func catalogSource(for user: UserID) -> (home: String?, environment: [String: String]) {
        guard !configuration.limitedByGuardian else { return (nil, [:]) }
        var environment =
            user.rawValue == getuid() ? configuration.environment ?? ProcessInfo.processInfo.environment : [:]
        let sessions = sessionEnvironments.sorted { $0.key < $1.key }.filter { $0.value.user == user }
            .map(\.value.environment)
        let folders = sessions.flatMap { session in
            session["XDG_DATA_DIRS"].map(DesktopEntryIndex.absoluteFolders(of:)) ?? []
        }
        if !folders.isEmpty {
            environment["XDG_DATA_DIRS"] = DesktopEntryIndex.dataDirs(
                sessionFolders: folders, then: environment["XDG_DATA_DIRS"])
        }
        if let locale = sessions.first(where: { AppCatalog.locale(of: $0) != nil }) {
            for key in AppCatalog.localeVariables { environment[key] = locale[key] }
        }
        return (Logind.home(of: user), environment)
    }

    /// Reads, once for each graphical session, what its environment says of the catalog (`sessionCatalogKeys`): a
    /// desktop session sets its `XDG_DATA_DIRS` and the user's language after the user's service manager (and a
    /// daemon it started with the user's login) took its environment, so the apps installed in a folder only the
    /// session names (a desktop's own, Nix's or Guix's profile) would be known by file name only, and every app named
    /// in the system's language. A catalog made otherwise is made again. Never for a guardian's limited users, whose
    /// environment would let them name a folder of their own.
    func learnSessionEnvironments(_ sessions: [SessionInfo], now: Duration) {
        guard !configuration.limitedByGuardian else { return }
        var users: Set<UserID> = []
        // Another user's environment is theirs to read (and root's).
        let readable = { (user: UserID) in getuid() == 0 || user.rawValue == getuid() }
        for session in sessions
        where session.isGraphical && sessionEnvironments[session.id] == nil && readable(session.user) {
            if let retry = sessionEnvironmentsRetry[session.id], now < retry { continue }
            let environment = graphicalEnvironment(of: session)
            guard !environment.isEmpty else {
                sessionEnvironmentsRetry[session.id] = now + .seconds(10)
                continue
            }
            sessionEnvironmentsRetry[session.id] = nil
            // A variable set empty says nothing (the default is what the catalog reads without it).
            sessionEnvironments[session.id] = (
                session.user, environment.filter { Self.sessionCatalogKeys.contains($0.key) && !$0.value.isEmpty }
            )
            users.insert(session.user)
        }
        guard !users.isEmpty else { return }
        let stale = users.filter { user in
            guard let built = catalogs[user] else { return false }
            let (home, environment) = catalogSource(for: user)
            return DesktopEntryIndex.dataDirectories(home: home, environment: environment)
                != built.desktopEntries.dataDirectories || AppCatalog.locale(of: environment) != built.locale
        }
        if !stale.isEmpty { forgetCatalogs(of: stale) }
    }
}
