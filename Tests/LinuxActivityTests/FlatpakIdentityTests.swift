import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// A flatpak's identity, in real sandboxes made by bubblewrap as flatpak makes them (the app's files at `/app`, a
/// `/.flatpak-info` naming it): a user's own daemon takes the sandbox's word; a guardian's only for what the system's
/// installation of the named app runs, so that a sandbox the limited user makes, naming any app, is not that app.
extension AppIdentityOfRealProcesses {
    /// Needs root (the system's installation is root's) and bwrap; under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aGuardianTakesAFlatpaksNameOnlyForTheSystemsInstallationOfThatApp() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap"), "bwrap (bubblewrap) is missing")
        let name = "org.screentime.FlatpakTest\(getpid())"
        let installed = "/var/lib/flatpak/app/\(name)/x86_64/stable/0123abcd/files"
        let own = "/tmp/st-flatpak-\(getpid())"
        // The folders this test makes go with it; those it found stay.
        let made = ["/var/lib/flatpak/app", "/var/lib/flatpak"].filter { !FileSystem.isDirectory($0) }
        defer {
            _ = try? removeTree(own)
            _ = try? removeTree("/var/lib/flatpak/app/\(name)")
            for folder in made { rmdir(folder) }
        }
        try writeFile("\(installed)/.keep", "")
        try copyFile("/bin/sleep", to: "\(installed)/game")
        try writeFile("\(own)/app/.keep", "")
        try copyFile("/bin/sleep", to: "\(own)/app/game")
        let info =
            "[Application]\nname=\(name)\nruntime=org.example.Platform/x86_64/1\n\n[Instance]\napp-path=\(installed)\n"
        try writeFile("\(own)/flatpak-info", info)

        // The system's installation at /app: the app, for both.
        let genuine = try sandbox(app: installed, info: "\(own)/flatpak-info")
        defer { stop([genuine.bwrap]) }
        // The user's own copy at /app under the same info: the app for a user's daemon, not for a guardian's.
        let forged = try sandbox(app: "\(own)/app", info: "\(own)/flatpak-info")
        defer { stop([forged.bwrap]) }

        let index = DesktopEntryIndex(entries: [])
        let table = resolvedTable(waitingFor: forged.game, index: index)
        let genuineEntry = try #require(table.entries[ProcessID(genuine.game)])
        let forgedEntry = try #require(table.entries[ProcessID(forged.game)])
        #expect(genuineEntry.executable == "/app/game" && forgedEntry.executable == "/app/game")
        let flatpak = ResolvedApp(id: AppID(name), source: .flatpak)
        let guardian = AppResolver(trustsUnitNames: false)
        #expect(AppResolver().resolve(genuineEntry, parent: nil, desktopEntries: index) == flatpak)
        #expect(guardian.resolve(genuineEntry, parent: nil, desktopEntries: index) == flatpak)
        #expect(AppResolver().resolve(forgedEntry, parent: nil, desktopEntries: index) == flatpak)
        #expect(
            guardian.resolve(forgedEntry, parent: nil, desktopEntries: index)
                == ResolvedApp(id: AppID("game"), source: .executable))
    }

    /// Starts `/app/game 600` (a copy of sleep) in a bubblewrap sandbox with `app` at `/app` and `info` at
    /// `/.flatpak-info`, on a root of its own (nothing is written to the host's); returns bwrap's pid and the game's.
    private func sandbox(app: String, info: String) throws -> (bwrap: pid_t, game: pid_t) {
        let bwrap = try spawn([
            "/usr/bin/bwrap", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
            "--ro-bind", app, "/app", "--ro-bind", info, "/.flatpak-info", "/app/game", "600",
        ])
        for _ in 0..<100 {
            if let game = child(of: bwrap), FileSystem.readLink("/proc/\(game)/exe") == "/app/game" {
                return (bwrap, game)
            }
            usleep(20_000)
        }
        stop([bwrap])
        throw TestError("the sandboxed game did not start")
    }
}
