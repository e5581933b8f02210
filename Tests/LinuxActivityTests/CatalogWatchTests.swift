import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

/// A running collector's catalog follows desktop entries written, changed and removed after it started: real
/// inotify watches on a real `XDG_DATA_HOME`, and a real running program.
@Suite(.serialized) struct CatalogWatchTests {
    let tokenizer = Tokenizer(key: Array(repeating: 9, count: 32))

    /// A collector's configuration whose user's data, system data and configuration folders are in `directory`.
    static func configuration(in directory: String) -> Collector.Configuration {
        var configuration = Collector.Configuration()
        configuration.environment = [
            "XDG_DATA_HOME": "\(directory)/data", "XDG_DATA_DIRS": "\(directory)/system",
            "XDG_CONFIG_HOME": "\(directory)/config",
        ]
        return configuration
    }

    /// A limited user's own desktop entries and category overrides could make a game pass for an allowed app: a
    /// guardian's collector reads neither.
    @Test func aGuardiansCatalogHoldsNoneOfTheUsersOwnEntriesOrOverrides() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-catalog-guardian")
        try writeFile(
            "\(directory)/data/applications/org.gnome.Calculator.desktop",
            "[Desktop Entry]\nType=Application\nName=Calculator\nExec=/usr/games/supertuxkart\nCategories=Utility;\n")
        try writeFile("\(directory)/config/screentime/categories.conf", "supertuxkart = utilities\n")
        var configuration = Self.configuration(in: directory)
        let user = UserID(getuid())
        let own = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { own.close() }
        #expect(own.catalog(for: user).desktopEntries.entries["org.gnome.Calculator"] != nil)
        #expect(own.catalog(for: user).label(for: AppID("supertuxkart")).category == .utilities)
        configuration.limitedByGuardian = true
        let guardian = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { guardian.close() }
        #expect(
            guardian.catalog(for: user).desktopEntries.entries["org.gnome.Calculator"]?.exec.first
                != "/usr/games/supertuxkart")
        #expect(guardian.catalog(for: user).label(for: AppID("supertuxkart")).category != .utilities)
    }

    /// A link back into an applications folder (`a -> .`) is followed once: the index and the watch would walk it
    /// without end (with two such links, a walk of 2^40 folders: the tick stalls, and the watchdog restarts the
    /// daemon into the same walk).
    @Test func aLinkBackIntoAnApplicationsFolderIsFollowedOnce() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-catalog-loop")
        let applications = "\(directory)/data/applications"
        try writeFile(
            "\(applications)/org.example.Loop.desktop", "[Desktop Entry]\nType=Application\nName=Loop\nExec=loop\n")
        try writeFile(
            "\(applications)/kde/konsole.desktop", "[Desktop Entry]\nType=Application\nName=Konsole\nExec=konsole\n")
        #expect(symlink(".", "\(applications)/a") == 0)
        let configuration = Self.configuration(in: directory)
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { collector.close() }
        let user = UserID(getuid())
        #expect(Set(collector.catalog(for: user).desktopEntries.entries.keys) == ["org.example.Loop", "kde-konsole"])
        // The real subfolder is still watched.
        try writeFile("\(applications)/kde/new.desktop", "[Desktop Entry]\nType=Application\nName=New\nExec=new\n")
        _ = collector.tick(now: .seconds(1), wallNow: Int64(time(nil)))
        #expect(collector.catalog(for: user).desktopEntries.entries["kde-new"] != nil)
    }

    /// An applications folder that is a link (dotfiles, a profile) pointed elsewhere: the catalog follows the link's
    /// new target from the next tick, not the folder it named at the start.
    @Test func anApplicationsLinkPointedElsewhereIsFollowed() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-catalog-link")
        try writeFile("\(directory)/a/org.example.A.desktop", "[Desktop Entry]\nType=Application\nName=A\nExec=a\n")
        try writeFile("\(directory)/b/org.example.B.desktop", "[Desktop Entry]\nType=Application\nName=B\nExec=b\n")
        try writeFile("\(directory)/data/.keep", "")
        #expect(symlink("\(directory)/a", "\(directory)/data/applications") == 0)
        let configuration = Self.configuration(in: directory)
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { collector.close() }
        let user = UserID(getuid())
        #expect(collector.catalog(for: user).desktopEntries.entries["org.example.A"] != nil)
        // Re-pointed as a profile switch does: a new link renamed over the old one.
        #expect(symlink("\(directory)/b", "\(directory)/data/applications.new") == 0)
        #expect(rename("\(directory)/data/applications.new", "\(directory)/data/applications") == 0)
        _ = collector.tick(now: .seconds(1), wallNow: Int64(time(nil)))
        #expect(collector.catalog(for: user).desktopEntries.entries["org.example.B"] != nil)
        #expect(collector.catalog(for: user).desktopEntries.entries["org.example.A"] == nil)
    }

    @Test func anEntryWrittenAfterTheStartNamesARunningProgramFromTheNextTick() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-catalog-watch")
        let program = "\(directory)/bin/stkart-watch"
        try writeFile("\(directory)/bin/.keep", "")
        try copyFile("/bin/sleep", to: program)
        let kart = try processes.start(program, ["600"])

        // Neither the data home nor its applications folder exists yet: the watch awaits them on their ancestor.
        let configuration = Self.configuration(in: directory)
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { collector.close() }
        var second: Int64 = 0
        func tick() {
            second += 1
            _ = collector.tick(now: .seconds(second), wallNow: Int64(time(nil)))
        }
        let user = UserID(getuid())
        func app() -> AppLabel? {
            collector.table.entries[ProcessID(kart.pid)]?.app.map { collector.catalog(for: user).label(for: $0.id) }
        }
        #expect(
            eventually {
                tick(); return app()?.id == AppID("stkart-watch")
            })
        #expect(app()?.category == .other)

        let entry = "\(directory)/data/applications/org.example.WatchKart.desktop"
        try writeFile(entry, "[Desktop Entry]\nType=Application\nName=Watch Kart\nExec=\(program)\nCategories=Game;\n")
        tick()
        let games = try #require(app())
        #expect(games.id == AppID("org.example.WatchKart"))
        #expect(games.name == "Watch Kart")
        #expect(games.category == .games)
        #expect(games.token == tokenizer.token(for: AppID("org.example.WatchKart")))
        #expect(games.categoryToken == tokenizer.token(for: ActivityCategory.games))
        let steady = collector.catalog(for: user)
        tick()
        #expect(collector.catalog(for: user) === steady)

        try writeFile(
            entry, "[Desktop Entry]\nType=Application\nName=Watch Kart\nExec=\(program)\nCategories=Education;\n")
        tick()
        #expect(app()?.id == AppID("org.example.WatchKart"))
        #expect(app()?.category == .education)

        #expect(unlink(entry) == 0)
        tick()
        #expect(app()?.id == AppID("stkart-watch"))
        #expect(app()?.category == .other)
    }

    @Test func anEntryInASystemDataDirectoryIsFollowedToo() throws {
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let directory = try processes.temporaryDirectory("st-catalog-system")
        try writeFile("\(directory)/system/applications/.keep", "")
        var configuration = Collector.Configuration()
        configuration.environment = ["XDG_DATA_HOME": "\(directory)/data", "XDG_DATA_DIRS": "\(directory)/system"]
        let collector = Collector(configuration: configuration, tokenizer: tokenizer)
        defer { collector.close() }
        let user = UserID(getuid())
        _ = collector.tick(now: .seconds(1), wallNow: Int64(time(nil)))
        #expect(collector.catalog(for: user).label(for: AppID("org.example.Chess")).category == .other)
        try writeFile(
            "\(directory)/system/applications/games/org.example.Chess.desktop",
            "[Desktop Entry]\nType=Application\nName=Chess\nExec=chess\nCategories=Game;BoardGame;\n")
        _ = collector.tick(now: .seconds(2), wallNow: Int64(time(nil)))
        // In a subfolder created after the start: its id takes the folder's name.
        #expect(collector.catalog(for: user).label(for: AppID("games-org.example.Chess")).category == .games)
    }
}
