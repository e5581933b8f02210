import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

@Suite struct Tokens {
    @Test func keyIsCreatedOnceWithMode0600AndTokensAreStable() throws {
        let directory = "/tmp/st-key-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { _ = try? removeTree(directory) }
        let path = directory + "/state/screentime/token.key"
        let first = try Tokenizer.loadOrCreate(keyAt: path)
        let status = try #require(FileSystem.status(path))
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(FileSystem.status(directory + "/state/screentime").map { $0.st_mode & 0o777 } == 0o700)
        let second = try Tokenizer.loadOrCreate(keyAt: path)
        #expect(first.token(for: AppID("org.example.Game")) == second.token(for: AppID("org.example.Game")))
        #expect(first.token(for: ActivityCategory.games) == second.token(for: ActivityCategory.games))
    }

    @Test func tokensRevealNothingWithoutTheKey() {
        let mine = Tokenizer(key: Array(repeating: 1, count: 32))
        let theirs = Tokenizer(key: Array(repeating: 2, count: 32))
        let app = AppID("org.example.Game")
        #expect(mine.token(for: app) != theirs.token(for: app))
        #expect(!mine.token(for: app).rawValue.contains("example"))
        #expect(mine.token(for: app).rawValue.count == 32)
        #expect(mine.token(for: app) != mine.token(for: AppID("org.example.Game2")))
        // Categories and apps live in separate token spaces even when their ids are equal.
        #expect(mine.token(for: AppID("games")).rawValue != mine.token(for: ActivityCategory.games).rawValue)
    }

    /// Tokens are HMAC-SHA256 (truncated to 128 bits) of a prefixed id: values computed independently with Python's
    /// `hmac` module, so a change of crypto library can't silently change every token of an installation.
    @Test func tokensAreTheStandardHMACSHA256() {
        let tokenizer = Tokenizer(key: Array("Jefe".utf8))
        #expect(tokenizer.token(for: AppID("org.example.Game")).rawValue == "b7caa601db2c41239ca036e84646707b")
        #expect(tokenizer.token(for: ActivityCategory.games).rawValue == "583c6729ab36300a0a965579ad631051")
    }

    @Test func aKeyOthersCanReadIsRefused() throws {
        let path = "/tmp/st-open-key-\(getpid())"
        defer { unlink(path) }
        try writeFile(path, String(repeating: "k", count: 32))
        chmod(path, 0o644)
        #expect {
            try Tokenizer.loadOrCreate(keyAt: path)
        } throws: { error in
            "\(error)".contains("chmod 600 \(path)")
        }
    }

    @Test func theKeysOwnerCanTurnTokensBackIntoLabels() throws {
        let tokenizer = Tokenizer(key: Array(repeating: 3, count: 32))
        let entry = try #require(
            DesktopEntry(id: "org.example.Game", parsing: "[Desktop Entry]\nName=Example Game\nExec=game\nCategories=Game;\n"))
        let catalog = AppCatalog(
            desktopEntries: DesktopEntryIndex(entries: [entry]),
            overrides: CategoryOverrides([AppID("vim"): .developerTools]), tokenizer: tokenizer, locale: nil)
        let label = try #require(catalog.label(forToken: tokenizer.token(for: AppID("org.example.Game"))))
        #expect(label.name == "Example Game")
        #expect(label.category == .games)
        #expect(catalog.label(for: AppID("vim")).category == .developerTools)
        #expect(catalog.category(forToken: tokenizer.token(for: ActivityCategory.games)) == .games)
        #expect(catalog.label(forToken: ApplicationToken(rawValue: "00")) == nil)
    }
}
