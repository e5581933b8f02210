import ArgumentParser
import FamilyControls
import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel

/// `screentime pick`: the Linux `FamilyActivityPicker`. Prints the chosen apps and categories as the JSON of a
/// `FamilyActivitySelection`, which an app reads back with `JSONDecoder`.
struct PickCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Choose apps and categories; print them as a FamilyActivitySelection (JSON).",
        discussion: """
            Without --app or --category, asks on the terminal: search, choose by number, "done". The selection \
            goes to standard output, the questions to standard error, so `screentime pick > selection.json` works. \
            Tokens are made with the same key as the daemon's, so the daemon shields exactly what was picked.
            """)

    @Option(
        help: ArgumentHelp("An app to pick, by its id (`screentime apps` lists them). Repeatable.", valueName: "id"))
    var app: [String] = []

    @Option(
        help: ArgumentHelp(
            "A category to pick: \(ActivityCategory.allCases.map(\.rawValue).joined(separator: ", ")). Repeatable.",
            valueName: "name"))
    var category: [String] = []

    @Flag(help: "Set includeEntireCategory in the selection.")
    var includeEntireCategory = false

    @OptionGroup var key: KeyOptions

    func run() async throws {
        let tokenizer = try loadTokenizer(key)
        let environment = ProcessInfo.processInfo.environment
        let overrides = try loadCategoryOverrides(environment)
        let catalog = AppCatalog(
            home: environment["HOME"], environment: environment, overrides: overrides, tokenizer: tokenizer)
        var selection = FamilyActivitySelection(includeEntireCategory: includeEntireCategory)
        if app.isEmpty && category.isEmpty {
            guard isatty(0) == 1 else {
                throw ValidationError(
                    "standard input is not a terminal, so there is no one to ask: name what to pick with --app ID "
                        + "(see `screentime apps`) or --category NAME")
            }
            guard let chosen = Self.ask(apps: catalog.installedApps()) else { throw ExitCode(1) }
            for item in chosen {
                switch item {
                case .category(let category): selection.categoryTokens.insert(tokenizer.token(for: category))
                case .app(let app): selection.applicationTokens.insert(app.token)
                }
            }
        } else {
            let installed = Set(catalog.installedApps().map(\.id.rawValue))
            for id in app {
                guard installed.contains(id) || DesktopEntryIndex.resolveInPath(id) != nil else {
                    throw ValidationError(
                        "no app \"\(id)\": it is neither a desktop entry's id nor a program on PATH; "
                            + "`screentime apps` lists the ids")
                }
                selection.applicationTokens.insert(catalog.label(for: AppID(id)).token)
            }
            for name in category {
                guard let picked = ActivityCategory(rawValue: name) else {
                    throw ValidationError(
                        "no category \"\(name)\": use one of "
                            + ActivityCategory.allCases.map(\.rawValue).joined(separator: ", "))
                }
                selection.categoryTokens.insert(tokenizer.token(for: picked))
            }
        }
        try printJSON(selection)
    }

    /// Asks on the terminal until "done" (the chosen items) or "quit" or the end of input (nil).
    static func ask(apps: [AppLabel]) -> Set<PickSession.Item>? {
        var session = PickSession(apps: apps)
        var note: String?
        while true {
            for line in session.render() { printError(line) }
            if let note { printError(note) }
            FileHandle.standardError.write(Data("> ".utf8))
            guard let line = readLine() else { return nil }
            switch session.handle(line) {
            case .show(let next): note = next
            case .done: return session.chosen
            case .cancel: return nil
            }
        }
    }
}
