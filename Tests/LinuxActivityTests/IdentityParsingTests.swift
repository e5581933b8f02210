import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

@Suite struct UnitNames {
    @Test(arguments: [
        ("app-gnome-org.gnome.Terminal-12345.scope", "org.gnome.Terminal"),
        ("app-org.kde.konsole-4242.scope", "org.kde.konsole"),
        ("app-flatpak-org.mozilla.firefox-98765.scope", "org.mozilla.firefox"),
        ("app-gnome-org.example.Game-4242.scope", "org.example.Game"),
        ("app-org.kde.dolphin@8c2a4d7b.service", "org.kde.dolphin"),
        ("app-gnome-firefox\\x2desr@12.service", "firefox-esr"),
        ("app-gnome-xdg\\x2duser\\x2ddirs-autostart.service", "xdg-user-dirs"),
        ("app-supertuxkart.service", "supertuxkart"),
        ("snap.firefox.firefox-1c4f5b1e-2f0a-4c71-9d7c-1f8c0e8d3a7b.scope", "firefox_firefox"),
        ("snap.code.url-handler-5a0c2bd2-7ef3-4e1a-b0d4-3b1d2d6d0c41.scope", "code_url-handler"),
    ])
    func unitsCarryTheirAppID(unit: String, expected: String) {
        #expect(UnitName.appID(of: unit) == AppID(expected))
    }

    @Test(arguments: [
        "session-3.scope", "user@1000.service", "app.slice", "dbus.service", "app-.scope", "app--1.scope",
        "init.scope", "app-a-b-c-d.scope",
    ])
    func otherUnitsNameNoApp(unit: String) {
        #expect(UnitName.appID(of: unit) == nil)
    }
}

@Suite struct DesktopEntries {
    @Test func parsesIdentityKeysAndSkipsOtherGroups() throws {
        let text = """
            # comment
            [Desktop Entry]
            Type=Application
            Name=Super Tux Kart
            Name[de]=Super-Tux-Kart
            Name[de_CH]=Super Tux Chärt
            Name[sr@latin]=Super Tuks
            Exec=supertuxkart %U
            TryExec=/usr/games/supertuxkart
            StartupWMClass=SuperTuxKart
            Icon=supertuxkart
            Categories=Game;ArcadeGame;

            [Desktop Action Window]
            Name=Windowed
            Exec=supertuxkart --windowed
            """
        let entry = try #require(DesktopEntry(id: "supertuxkart", parsing: text))
        #expect(entry.exec == ["supertuxkart"])
        #expect(entry.tryExec == "/usr/games/supertuxkart")
        #expect(entry.startupWMClass == "SuperTuxKart")
        #expect(entry.categories == ["Game", "ArcadeGame"])
        #expect(entry.name(locale: nil) == "Super Tux Kart")
        #expect(entry.name(locale: "de_DE.UTF-8") == "Super-Tux-Kart")
        #expect(entry.name(locale: "de_CH.UTF-8") == "Super Tux Chärt")
        #expect(entry.name(locale: "sr_RS@latin") == "Super Tuks")
        #expect(entry.name(locale: "fr_FR.UTF-8") == "Super Tux Kart")
        #expect(entry.name(locale: "C") == "Super Tux Kart")
        #expect(!entry.noDisplay && !entry.hidden)
    }

    /// A catalog keeps only the names its locale reads: each locale still gets the name the whole entry gives it.
    @Test func anEntryKeepsOnlyTheNamesOfItsLocale() throws {
        let text = """
            [Desktop Entry]
            Name=Super Tux Kart
            Name[de]=Super-Tux-Kart
            Name[de_CH]=Super Tux Chärt
            Name[sr@latin]=Super Tuks
            Comment[de]=Ein Spiel
            Exec=supertuxkart
            """
        let all = try #require(DesktopEntry(id: "supertuxkart", parsing: text))
        for locale in ["de_DE.UTF-8", "de_CH.UTF-8", "sr_RS@latin", "fr_FR.UTF-8", "C"] as [String?] + [nil] {
            let kept = try #require(
                DesktopEntry(
                    id: "supertuxkart", parsing: text, nameLocaleKeys: Set(DesktopEntry.localeKeys(locale))))
            #expect(kept.name(locale: locale) == all.name(locale: locale))
            #expect(Set(kept.names.keys) == Set(all.names.keys).intersection([""] + DesktopEntry.localeKeys(locale)))
        }
        #expect(all.names.count == 4)
    }

    @Test(arguments: [
        ("prog %f", ["prog"]),
        ("prog %F %u %U %i %c %k", ["prog"]),
        ("prog --rate=100%%", ["prog", "--rate=100%"]),
        (#""/opt/My Game/run" --fast"#, ["/opt/My Game/run", "--fast"]),
        (#"sh -c "echo \\"hi\\" \\$HOME""#, ["sh", "-c", #"echo "hi" $HOME"#]),
        (#"env LANG=C "/usr/bin/game""#, ["env", "LANG=C", "/usr/bin/game"]),
        (#"prog\sarg"#, ["prog", "arg"]),
        (#""prog\sarg""#, ["prog arg"]),
        (#""C:\\\\Games""#, [#"C:\Games"#]),
        ("  prog   a  ", ["prog", "a"]),
        (#"prog "" end"#, ["prog", "", "end"]),
    ])
    func execLinesAreUnquotedAndFieldCodesDropped(exec: String, expected: [String]) throws {
        let entry = try #require(DesktopEntry(id: "t", parsing: "[Desktop Entry]\nExec=\(exec)\n"))
        #expect(entry.exec == expected)
    }

    @Test func valueEscapes() throws {
        let entry = try #require(DesktopEntry(id: "t", parsing: "[Desktop Entry]\nName=a\\sb\\tc\\nd\n"))
        #expect(entry.name(locale: nil) == "a b\tc\nd")
    }

    @Test func hiddenAndNoDisplay() throws {
        let hidden = try #require(DesktopEntry(id: "h", parsing: "[Desktop Entry]\nHidden=true\nNoDisplay=true\n"))
        #expect(hidden.hidden && hidden.noDisplay)
        #expect(DesktopEntryIndex(entries: [hidden]).entries.isEmpty)
    }

    @Test func notADesktopFileIsNil() {
        #expect(DesktopEntry(id: "x", parsing: "Name=x\n") == nil)
    }

    @Test func indexFindsEntriesByExecutableWindowClassAndScript() throws {
        let game = try #require(DesktopEntry(id: "org.example.Game", parsing: """
            [Desktop Entry]
            Name=Game
            Exec=env SDL_VIDEODRIVER=x11 /opt/example/bin/game --fullscreen %u
            StartupWMClass=ExampleGame
            """))
        let tool = try #require(DesktopEntry(id: "org.example.Tool", parsing: """
            [Desktop Entry]
            Name=Tool
            Exec=python3 /opt/example/tool.py %F
            """))
        // A command given to a shell names no program of its own: the shell, which every terminal runs, is not it.
        let inline = try #require(
            DesktopEntry(id: "aaa-tool", parsing: "[Desktop Entry]\nName=AAA Tool\nExec=sh -c \"echo hi\"\n"))
        let index = DesktopEntryIndex(entries: [inline, game, tool])
        #expect(index.entry(forExecutable: "/usr/bin/dash") == Optional<DesktopEntry>.none)
        #expect(index.entry(forExecutable: "/bin/sh") == Optional<DesktopEntry>.none)
        #expect(index.entry(forExecutable: "/opt/example/bin/game")?.id == "org.example.Game")
        #expect(index.entry(forExecutable: "/elsewhere/game")?.id == "org.example.Game")
        #expect(index.entry(forExecutable: "/opt/example/tool.py")?.id == "org.example.Tool")
        #expect(index.entry(forExecutable: "/usr/bin/python3") == Optional<DesktopEntry>.none)
        #expect(index.entry(forWindowClass: "examplegame")?.id == "org.example.Game")
        #expect(index.entry(forWindowClass: "org.example.Tool")?.id == "org.example.Tool")
        #expect(index.entry(forWindowClass: "Game")?.id == "org.example.Game")
    }

    @Test func userEntriesHideSystemOnesWithTheSameID() throws {
        let root = "/tmp/st-desktop-\(getpid())"
        defer { _ = try? removeTree(root) }
        try writeFile("\(root)/home/applications/org.example.Game.desktop", "[Desktop Entry]\nName=Mine\nExec=mine\n")
        try writeFile("\(root)/home/applications/gone.desktop", "[Desktop Entry]\nHidden=true\n")
        try writeFile("\(root)/sys/applications/org.example.Game.desktop", "[Desktop Entry]\nName=System\nExec=sys\n")
        try writeFile("\(root)/sys/applications/gone.desktop", "[Desktop Entry]\nName=Gone\nExec=gone\n")
        try writeFile("\(root)/sys/applications/kde/konsole.desktop", "[Desktop Entry]\nName=Konsole\nExec=konsole\n")
        let index = DesktopEntryIndex(dataDirectories: ["\(root)/home", "\(root)/sys"])
        #expect(index.entries["org.example.Game"]?.name(locale: nil) == "Mine")
        #expect(index.entries["gone"] == Optional<DesktopEntry>.none)
        #expect(index.entries["kde-konsole"]?.name(locale: nil) == "Konsole")
    }

    /// Flatpak's and Snap's folders are searched after XDG_DATA_DIRS, also when the daemon's environment lacks them
    /// (it started before the session added them): an app the user installed with `flatpak --user` is known.
    @Test func flatpakAndSnapFoldersAreSearchedWithoutXDGDataDirsNamingThem() throws {
        let root = "/tmp/st-flatpak-\(getpid())"
        defer { _ = try? removeTree(root) }
        try writeFile(
            "\(root)/.local/share/flatpak/exports/share/applications/org.example.Game.desktop",
            "[Desktop Entry]\nType=Application\nName=Game\nExec=/usr/bin/flatpak run org.example.Game\n")
        let directories = DesktopEntryIndex.dataDirectories(home: root, environment: ["XDG_DATA_DIRS": "/usr/share"])
        #expect(
            directories == [
                root + "/.local/share", "/usr/share", root + "/.local/share/flatpak/exports/share",
                "/var/lib/flatpak/exports/share", "/var/lib/snapd/desktop",
            ])
        #expect(DesktopEntryIndex(dataDirectories: directories).entries["org.example.Game"]?.name(locale: nil) == "Game")
        // Without a home (a guardian's limited user, whose own entries could pass a game for an allowed app), none
        // of the user's folders.
        #expect(!DesktopEntryIndex.dataDirectories(home: nil, environment: [:]).contains { $0.hasPrefix(root) })
    }

    /// The folders a user's desktop session names in its XDG_DATA_DIRS (read from its processes, as the session set
    /// it after the daemon started) are searched first, each once, and its locale names the apps; never for a
    /// guardian's limited user, who would name a folder of their own.
    @Test func theSessionsDataFoldersAndLocaleMakeTheCatalogExceptForALimitedUser() throws {
        #expect(
            DesktopEntryIndex.dataDirs(
                sessionFolders: ["/opt/desk/share", "/usr/share"], then: "/usr/local/share/:/usr/share:rel")
                == "/opt/desk/share:/usr/share:/usr/local/share")
        #expect(
            DesktopEntryIndex.dataDirs(sessionFolders: ["/nix/share"], then: "")
                == "/nix/share:/usr/local/share:/usr/share")
        let root = "/tmp/st-session-data-\(getpid())"
        defer { _ = try? removeTree(root) }
        try writeFile(
            "\(root)/desk/applications/org.example.Puzzle.desktop",
            "[Desktop Entry]\nType=Application\nName=Puzzle\nName[de]=Rätsel\nExec=/opt/puzzle/puzzle\n")
        let user = UserID(getuid())
        for limited in [false, true] {
            var configuration = Collector.Configuration()
            configuration.environment = [
                "XDG_DATA_HOME": "\(root)/data", "XDG_DATA_DIRS": "\(root)/system", "LANG": "C.UTF-8",
            ]
            configuration.limitedByGuardian = limited
            let collector = Collector(
                configuration: configuration, tokenizer: Tokenizer(key: Array(repeating: 3, count: 32)))
            defer { collector.close() }
            collector.sessionEnvironments[SessionID("4")] = (
                user, ["XDG_DATA_DIRS": "\(root)/desk", "LANG": "de_DE.UTF-8"]
            )
            let catalog = collector.catalog(for: user)
            #expect((catalog.desktopEntries.entries["org.example.Puzzle"] != nil) == !limited)
            let name = catalog.label(for: AppID("org.example.Puzzle")).name
            #expect(name == (limited ? "org.example.Puzzle" : "Rätsel"))
        }
    }
}

@Suite struct Programs {
    @Test(arguments: [
        (["python3", "game.py", "--level", "2"], "game.py"),
        (["python3", "-u", "-X", "dev", "/opt/g/main.py"], "/opt/g/main.py"),
        (["python3", "-m", "mygame"], "mygame"),
        (["java", "-Xmx1g", "-jar", "minecraft.jar"], "minecraft.jar"),
        (["java", "-cp", "lib.jar", "com.example.Main"], "com.example.Main"),
        (["wine", "C:\\Games\\game.exe"], "C:\\Games\\game.exe"),
        (["bash", "./start.sh"], "./start.sh"),
        (["node", "--inspect", "server.js"], "server.js"),
    ])
    func interpretersRunTheirScript(arguments: [String], script: String) {
        #expect(ProgramResolver.script(arguments: arguments) == script)
    }

    @Test(arguments: [["python3"], ["bash", "-c", "sleep 1"], ["perl", "-e", "print 1"], ["bash", "-l"]])
    func interactiveOrInlineCodeHasNoScript(arguments: [String]) {
        #expect(ProgramResolver.script(arguments: arguments) == nil)
    }

    @Test func versionedInterpretersAreRecognized() {
        #expect(ProgramResolver.isInterpreter("python3.11"))
        #expect(ProgramResolver.isInterpreter("perl5.36.0"))
        #expect(!ProgramResolver.isInterpreter("vim"))
        #expect(!ProgramResolver.isInterpreter("python-game"))
    }

    @Test func flatpakRunNamesTheApp() {
        #expect(ProgramResolver.effectiveCommand(["/usr/bin/flatpak", "run", "--branch=stable", "org.x.Y"]) == ["org.x.Y"])
    }
}

@Suite struct Categories {
    @Test(arguments: [
        (["GTK", "Game", "ArcadeGame"], ActivityCategory.games),
        (["Network", "WebBrowser"], .webBrowsers),
        (["Network", "InstantMessaging"], .social),
        (["Development", "IDE"], .developerTools),
        (["AudioVideo", "Player"], .entertainment),
        (["Office", "Finance"], .productivityFinance),
        (["Graphics", "2DGraphics"], .creativity),
        (["Education", "Math"], .education),
        (["System", "TerminalEmulator"], .utilities),
        (["Utility", "Calculator"], .utilities),
        ([], .other),
        (["X-Unknown"], .other),
    ])
    func freedesktopCategoriesMapOntoScreenTimeCategories(categories: [String], expected: ActivityCategory) {
        #expect(CategoryMapping.category(for: categories) == expected)
    }

    @Test func overridesFileParsesAndReportsPositions() throws {
        let overrides = try CategoryOverrides(parsing: "# mine\norg.example.Game = games\n\nvim=developer-tools # ok\n", file: "c")
        #expect(overrides.categories == [AppID("org.example.Game"): .games, AppID("vim"): .developerTools])
        #expect(throws: CategoryOverrides.ParseError.self) { try CategoryOverrides(parsing: "x = gmaes\n", file: "c") }
        do {
            _ = try CategoryOverrides(parsing: "\nx = gmaes\n", file: "cats.conf")
        } catch {
            #expect(error.description.hasPrefix("cats.conf:2:4: unknown category `gmaes`; valid: games, social"))
        }
    }
}

@Suite("Screen Time extensions in desktop entries") struct DesktopEntryExtensionTests {
    @Test func declaredExtensionsAreReadAndARelativePathIsRefusedWithTheEntryAndKey() throws {
        let entry = try #require(
            DesktopEntry(
                id: "org.example.Homework",
                parsing: """
                    [Desktop Entry]
                    Name=Homework
                    Exec=homework
                    X-ScreenTime-Monitor=/opt/homework/monitor
                    X-ScreenTime-ShieldConfiguration=shield-look
                    """))
        #expect(try entry.screenTimeExtension(.monitor)?.get() == "/opt/homework/monitor")
        #expect(entry.screenTimeExtension(.report) == nil)
        guard case .failure(let error)? = entry.screenTimeExtension(.shieldConfiguration) else {
            Issue.record("a relative path was accepted")
            return
        }
        #expect(
            error.message
                == "desktop entry org.example.Homework: X-ScreenTime-ShieldConfiguration=shield-look is not an absolute "
                + "path to an executable; write its full path, with no arguments")
    }
}
