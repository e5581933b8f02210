import Enforcement
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// Which cgroup a shield freezes as a process's own, and whether it moves the process into a scope instead.
@Suite struct ShieldPlacementTests {
    let user = UserID(1000)
    let pid = ProcessID(42)

    @Test func aUsersDaemonFreezesAnAppsOwnScopeAndMovesOnlyWithinItsManagersTree() {
        let scope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example.Game-42.scope"
        let own = Daemon.placement(of: pid, of: user, in: scope, system: false)
        #expect(own.ownCgroup == CgroupPath(scope))
        let shared = Daemon.placement(
            of: pid, of: user, in: "/user.slice/user-1000.slice/user@1000.service/app.slice/dbus.service",
            system: false)
        #expect(shared.ownCgroup == nil && shared.confinable)
        let session = Daemon.placement(
            of: pid, of: user, in: "/user.slice/user-1000.slice/session-3.scope", system: false)
        #expect(session.ownCgroup == nil && !session.confinable)
        let daemon = Daemon.placement(
            of: pid, of: user, in: "/user.slice/user-1000.slice/user@1000.service/app.slice/screentimed.service",
            system: false)
        #expect(daemon.ownCgroup == nil && !daemon.confinable)
    }

    /// A guardian's shield scope is the own cgroup of the process it was made for only: a terminal moved there in a
    /// downtime and released in the morning runs a game in it, and the game's limit must not freeze the terminal.
    @Test func aGuardiansShieldScopeIsOnlyItsOwnProcesssCgroup() {
        let scope = "/user.slice/user-1000.slice/app-screentime-org.gnome.Terminal-42.scope"
        #expect(Daemon.placement(of: pid, of: user, in: scope, system: true).ownCgroup == CgroupPath(scope))
        let game = Daemon.placement(of: ProcessID(77), of: user, in: scope, system: true)
        #expect(game.ownCgroup == nil && game.confinable)
        let userScope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example.Game-42.scope"
        let inUserTree = Daemon.placement(of: pid, of: user, in: userScope, system: true)
        #expect(inUserTree.ownCgroup == nil && inUserTree.confinable)
    }
}
