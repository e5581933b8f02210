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
        let overrides = try loadCategoryOverrides(environment)
        let catalog = AppCatalog(home: home, environment: environment, overrides: overrides, tokenizer: tokenizer)
        let apps = catalog.installedApps()
        if json {
            try printJSON(apps)
            return
        }
        let width = min(32, apps.map(\.name.oneLine.count).max() ?? 4)
        for app in apps {
            let shown = app.name.oneLine
            let name = shown.count > width ? String(shown.prefix(width - 1)) + "…" : shown
            printText(
                name.padding(width) + "  " + app.category.rawValue.padding(20) + "  "
                    + String(app.token.rawValue.prefix(12)) + "  " + app.id.rawValue.oneLine)
        }
        printText("\(apps.count) apps")
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

/// Loads (or creates) the token key the options name, or fails with a clear message and exit status 1.
func loadTokenizer(_ options: KeyOptions) throws -> Tokenizer {
    let path =
        options.tokenKey
        ?? Tokenizer.defaultKeyPath(system: options.system, environment: ProcessInfo.processInfo.environment)
    do {
        return try Tokenizer.loadOrCreate(keyAt: path)
    } catch {
        printError("screentime: \(error)")
        throw ExitCode(1)
    }
}

/// The user's category overrides (`categories.conf`); a file that can't be read ends the command with its error
/// (status 1: the file is at fault, not the command line).
func loadCategoryOverrides(_ environment: [String: String]) throws -> CategoryOverrides {
    do {
        return try CategoryOverrides.load(home: environment["HOME"], environment: environment)
    } catch {
        printError("screentime: \(error)")
        throw ExitCode(1)
    }
}

/// Writes a line to standard error, with every control character made visible (names come from processes).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.escapingControlCharacters(keepingLineFeeds: true) + "\n").utf8))
}

/// Prints `value` as indented JSON with sorted keys and ISO 8601 dates (see `jsonText` for what names hold).
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    print(jsonText(try encoder.encode(value)))
}

/// Encoded JSON as text to print. The encoder escapes the C0 controls in strings, not the rest of what text shows
/// escaped (`needsEscape`: DEL, the C1 controls — U+009B is a terminal's one-byte CSI —, the bidirectional
/// overrides): those are written as `\uXXXX` escapes too, the same string for a JSON reader and nothing a terminal
/// acts on. They can only be in strings: the rest is ASCII (and its C0 characters, the layout's line feeds, stay).
func jsonText(_ encoded: Data) -> String {
    let text = String(decoding: encoded, as: UTF8.self)
    let invisible = { (scalar: Unicode.Scalar) in scalar.value >= 0x20 && scalar.needsEscape }
    guard text.unicodeScalars.contains(where: invisible) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        if invisible(scalar) {
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// Prints text meant for a person: names in it come from processes and desktop entries, so every control character
/// is made visible (`\e`, `\x07`, …) and none reaches the terminal. JSON goes through `print`: its encoder escapes.
/// Line feeds are kept, as the lines of the text: a name put into it goes in as `name.oneLine`, or one holding a line
/// feed would print a line of its own choosing.
func printText(_ text: String, terminator: String = "\n") {
    print(text.escapingControlCharacters(keepingLineFeeds: true), terminator: terminator)
}

/// Prints data meant for a program (CSV): names as they are into a pipe or a file; on a terminal, where a person reads
/// it, with their control characters made visible as `printText` does.
func printData(_ text: String) {
    if isatty(STDOUT_FILENO) == 1 { printText(text, terminator: "") } else { print(text, terminator: "") }
}

extension String {
    /// The string as part of one line of text: every control character made visible, line feeds too.
    var oneLine: String { escapingControlCharacters() }
}
