import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// A flatpak's identity, in real sandboxes made by bubblewrap as flatpak makes them (the app's files at `/app`, the
/// runtime's at `/usr`, a `/.flatpak-info` naming the app): a user's own daemon takes the sandbox's word; a
/// guardian's only for what the system's installation of the named app runs on a system runtime, so that a sandbox
/// the limited user makes, naming any app, is not that app.
extension AppIdentityOfRealProcesses {
    /// Needs root (the system's installations are root's), gcc and bwrap; under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aGuardianTakesAFlatpaksNameOnlyForTheSystemsInstallationOfThatApp() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap"), "bwrap (bubblewrap) is missing")
        let name = "org.screentime.FlatpakTest\(getpid())"
        let installed = "/var/lib/flatpak/app/\(name)/x86_64/stable/0123abcd/files"
        let runtime = "/var/lib/flatpak/runtime/\(name).Platform/x86_64/1/4567ef01/files"
        let own = "/tmp/st-flatpak-\(getpid())"
        // The folders this test makes go with it; those it found stay.
        let made = ["/var/lib/flatpak/app", "/var/lib/flatpak/runtime", "/var/lib/flatpak"].filter {
            !FileSystem.isDirectory($0)
        }
        defer {
            _ = try? removeTree(own)
            _ = try? removeTree("/var/lib/flatpak/app/\(name)")
            _ = try? removeTree("/var/lib/flatpak/runtime/\(name).Platform")
            for folder in made { rmdir(folder) }
        }
        // A game that needs nothing of /usr (static), so that a sandbox's /usr may be any folder.
        try writeFile("\(own)/game.c", "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n")
        let compiled = try run(["/usr/bin/gcc", "-static", "-O1", "-o", "\(own)/game", "\(own)/game.c"])
        try #require(compiled, "gcc -static failed")
        try writeFile("\(installed)/.keep", "")
        try copyFile("\(own)/game", to: "\(installed)/game")
        try writeFile("\(runtime)/bin/.keep", "")
        try copyFile("\(own)/game", to: "\(runtime)/bin/tool")
        try writeFile("\(own)/app/.keep", "")
        try copyFile("\(own)/game", to: "\(own)/app/game")
        try writeFile("\(own)/usr/.keep", "")
        try writeFile(
            "\(own)/flatpak-info",
            "[Application]\nname=\(name)\nruntime=runtime/\(name).Platform/x86_64/1\n\n[Instance]\n"
                + "app-path=\(installed)\nruntime-path=\(runtime)\n")
        let info = "\(own)/flatpak-info"

        // The system's installation at /app, on the system's runtime: the app, for both.
        let genuine = try sandbox(app: installed, usr: runtime, info: info, run: "/app/game")
        defer { stop([genuine.bwrap]) }
        // The user's own copy at /app under the same info.
        let copied = try sandbox(app: "\(own)/app", usr: runtime, info: info, run: "/app/game")
        defer { stop([copied.bwrap]) }
        // The installation's program on a /usr of the user's own (their loader, their libraries).
        let ownUsr = try sandbox(app: installed, usr: "\(own)/usr", info: info, run: "/app/game")
        defer { stop([ownUsr.bwrap]) }
        // A program of the runtime (an interpreter given code on its command line) with no script of the app.
        let runtimeTool = try sandbox(app: installed, usr: runtime, info: info, run: "/usr/bin/tool")
        defer { stop([runtimeTool.bwrap]) }

        // A FIFO in the place of /.flatpak-info (its reader would wait for a writer forever): not read.
        #expect(mkfifo("\(own)/fifo", 0o644) == 0)
        let fifo = try sandbox(app: installed, usr: runtime, info: "\(own)/fifo", run: "/app/game")
        defer { stop([fifo.bwrap]) }

        let index = DesktopEntryIndex(entries: [])
        let table = resolvedTable(waitingFor: fifo.game, index: index)
        let fifoEntry = try #require(table.entries[ProcessID(fifo.game)])
        #expect(
            AppResolver(trustsUnitNames: false).resolve(fifoEntry, parent: nil, desktopEntries: index)
                == ResolvedApp(id: AppID("game"), source: .executable))
        let flatpak = ResolvedApp(id: AppID(name), source: .flatpak)
        let guardian = AppResolver(trustsUnitNames: false)
        for (sandboxed, trusted) in [(genuine, true), (copied, false), (ownUsr, false), (runtimeTool, false)] {
            var entry = try #require(table.entries[ProcessID(sandboxed.game)])
            // A program outside /app is looked at as a flatpak's in a scope flatpak names (the user can name one so).
            if sandboxed == runtimeTool {
                entry.controlGroup = ControlGroup(
                    path: "/user.slice/user-0.slice/user@0.service/app.slice/app-flatpak-\(name)-1.scope")
                #expect(
                    AppResolver().resolve(entry, parent: nil, desktopEntries: index)
                        == ResolvedApp(id: AppID(name), source: .unit))
            } else {
                #expect(AppResolver().resolve(entry, parent: nil, desktopEntries: index) == flatpak)
            }
            let byGuardian = guardian.resolve(entry, parent: nil, desktopEntries: index)
            #expect((byGuardian == flatpak) == trusted, "\(entry.executable ?? "?"): \(String(describing: byGuardian))")
            if !trusted { #expect(byGuardian?.source == .executable) }
        }
    }

    /// An extra system installation (`/etc/flatpak/installations.d`) counts as the system's when it and the file that
    /// names it are root's alone: real folders and real sandboxes, one on a "disk" the limited user owns.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aGuardianTakesAFlatpaksNameFromAnExtraInstallationOnlyWhenItIsRootsAlone() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap"), "bwrap (bubblewrap) is missing")
        let name = "org.screentime.ExtraTest"
        let own = "/tmp/st-flatpak-extra-\(getpid())"
        defer { _ = try? removeTree(own) }
        try writeFile("\(own)/game.c", "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n")
        try #require(try run(["/usr/bin/gcc", "-static", "-O1", "-o", "\(own)/game", "\(own)/game.c"]))
        // The same app in two installations: root's, and one on a disk the user owns (its top folder theirs).
        var infos: [String: String] = [:]
        for installation in ["extra", "card"] {
            let app = "\(own)/\(installation)/app/\(name)/x86_64/stable/0123abcd/files"
            let runtime = "\(own)/\(installation)/runtime/\(name).Platform/x86_64/1/4567ef01/files"
            try writeFile("\(app)/.keep", "")
            try copyFile("\(own)/game", to: "\(app)/game")
            try writeFile("\(runtime)/.keep", "")
            infos[installation] = "\(own)/\(installation).info"
            try writeFile(
                infos[installation]!,
                "[Application]\nname=\(name)\n\n[Instance]\napp-path=\(app)\nruntime-path=\(runtime)\n")
        }
        #expect(chown("\(own)/card", 65534, 65534) == 0)
        let configured = "\(own)/installations.d"
        try writeFile("\(configured)/extra.conf", "[Installation \"extra\"]\nPath=\(own)/extra\nStorageType=harddisk\n")
        try writeFile("\(configured)/card.conf", "[Installation \"card\"]\nPath=\(own)/card\n")
        // A file anyone may change names the user's disk too; and one that isn't a .conf.
        try writeFile("\(configured)/open.conf", "[Installation \"open\"]\nPath=\(own)/extra/app\n")
        #expect(chmod("\(configured)/open.conf", 0o666) == 0)
        try writeFile("\(configured)/notes.txt", "[Installation \"notes\"]\nPath=\(own)/extra/runtime\n")
        let installations = FlatpakInstance.systemInstallations(configuredIn: configured)
        #expect(installations == [FlatpakInstance.defaultInstallation, "\(own)/extra"])

        var verdicts: [String: Bool] = [:]
        for installation in ["extra", "card"] {
            let app = "\(own)/\(installation)/app/\(name)/x86_64/stable/0123abcd/files"
            let runtime = "\(own)/\(installation)/runtime/\(name).Platform/x86_64/1/4567ef01/files"
            let sandboxed = try sandbox(app: app, usr: runtime, info: infos[installation]!, run: "/app/game")
            defer { stop([sandboxed.bwrap]) }
            let info = try #require(FileSystem.readText("/.flatpak-info", inRoot: "/proc/\(sandboxed.game)/root"))
            let verdict = { (installations: [String]) in
                FlatpakInstance(info: info).runsSystemInstallation(
                    executable: "/app/game", script: nil, processRoot: "/proc/\(sandboxed.game)/root",
                    processExecutable: "/proc/\(sandboxed.game)/exe", installations: installations)
            }
            verdicts[installation] = verdict(installations)
            // Were the user's disk a system installation, its app would be taken for what it says.
            #expect(verdict(installations + ["\(own)/card"]))
        }
        #expect(verdicts == ["extra": true, "card": false])
    }

    /// Starts `run` in a bubblewrap sandbox with `app` at `/app`, `usr` at `/usr` and `info` at `/.flatpak-info`, on a
    /// root of its own (nothing is written to the host's); returns bwrap's pid and the sandboxed program's.
    private func sandbox(app: String, usr: String, info: String, run program: String) throws -> (
        bwrap: pid_t, game: pid_t
    ) {
        let bwrap = try spawn([
            "/usr/bin/bwrap", "--die-with-parent", "--ro-bind", usr, "/usr", "--proc", "/proc", "--dev", "/dev",
            "--ro-bind", app, "/app", "--ro-bind", info, "/.flatpak-info", program,
        ])
        for _ in 0..<100 {
            if let game = child(of: bwrap), FileSystem.readLink("/proc/\(game)/exe") == program { return (bwrap, game) }
            usleep(20_000)
        }
        stop([bwrap])
        throw TestError("the sandboxed \(program) did not start")
    }

    /// Runs `argv` to its end; whether it exited 0.
    func run(_ argv: [String]) throws -> Bool {
        let pid = try spawn(argv)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status == 0
    }
}
