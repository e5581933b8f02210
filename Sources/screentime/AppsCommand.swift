import ArgumentParser
import Foundation
import LinuxActivity
import ScreenTimeModel

/// `screentime apps`: installed apps with tokens and categories.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List installed apps (desktop entries) with their ids, tokens and categories.")

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @OptionGroup var key: KeyOptions

    func run() async throws {
        let tokenizer = try loadTokenizer(key)
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"]
        let overrides: CategoryOverrides
        do {
            overrides = try CategoryOverrides.load(home: home, environment: environment)
        } catch {
            throw ValidationError("\(error)")
        }
        let catalog = AppCatalog(home: home, environment: environment, overrides: overrides, tokenizer: tokenizer)
        let apps = catalog.installedApps()
        if json {
            try printJSON(apps)
            return
        }
        let width = min(32, apps.map(\.name.count).max() ?? 4)
        for app in apps {
            let name = app.name.count > width ? String(app.name.prefix(width - 1)) + "…" : app.name
            printText(
                name.padding(width) + "  " + app.category.rawValue.padding(20) + "  "
                    + String(app.token.rawValue.prefix(12)) + "  " + app.id.rawValue)
        }
        printText("\(apps.count) apps")
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Loads (or creates) the token key the options name, or fails with a clear message and exit status 1.
func loadTokenizer(_ options: KeyOptions) throws -> Tokenizer {
    let path = options.tokenKey
        ?? Tokenizer.defaultKeyPath(system: options.system, environment: ProcessInfo.processInfo.environment)
    do {
        return try Tokenizer.loadOrCreate(keyAt: path)
    } catch {
        printError("screentime: \(error)")
        throw ExitCode(1)
    }
}

/// Writes a line to standard error, with every control character made visible (names come from processes).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.escapingControlCharacters(keepingLineFeeds: true) + "\n").utf8))
}

/// Prints `value` as indented JSON with sorted keys and ISO 8601 dates (the encoder escapes what names hold).
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints text meant for a person: names in it come from processes and desktop entries, so every control character
/// is made visible (`\e`, `\x07`, …) and none reaches the terminal. JSON goes through `print`: its encoder escapes.
func printText(_ text: String, terminator: String = "\n") {
    print(text.escapingControlCharacters(keepingLineFeeds: true), terminator: terminator)
}
