import Foundation
import Glibc

/// The entry point of a shield-configuration extension: a program that links `ManagedSettings`, subclasses
/// `ShieldConfigurationDataSource`, and is declared in its app's desktop entry as
/// `X-ScreenTime-ShieldConfiguration=/path/to/program`. When one of the app's stores starts shielding an app,
/// `screentimed` runs it as `EXE --shield-configuration --application TOKEN [--category TOKEN]` and shows the
/// `ShieldConfiguration` it prints (as JSON) in the shield's notification.
///
/// ```swift
/// final class Look: ShieldConfigurationDataSource {
///     override func configuration(shielding application: ApplicationToken) -> ShieldConfiguration {
///         ShieldConfiguration(title: .init(text: "Homework first"), subtitle: .init(text: "Back at 6 pm"))
///     }
/// }
/// @main struct Main { static func main() { ShieldConfigurationExtensionMain.run(Look()) } }
/// ```
public enum ShieldConfigurationExtensionMain {
    /// What to configure: the shielded app, and its category when the shield came through it.
    public struct Invocation: Hashable, Sendable {
        public var application: ApplicationToken
        public var category: ActivityCategoryToken?
    }

    /// Reads the invocation from `arguments` (without the program's name).
    ///
    /// - Throws: a message naming the argument that is wrong and the expected usage.
    public static func parse(arguments: [String]) throws(UsageError) -> Invocation {
        var application: String?
        var category: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--shield-configuration": continue
            case "--application", "--category":
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    throw UsageError(message: "\(argument) needs a token")
                }
                if argument == "--application" { application = value } else { category = value }
            default: throw UsageError(message: "unexpected argument \(argument)")
            }
        }
        guard let application else { throw UsageError(message: "no --application given") }
        return Invocation(
            application: ApplicationToken(rawValue: application), category: category.map { ActivityCategoryToken(rawValue: $0) })
    }

    /// The configuration `dataSource` gives for `invocation`.
    public static func configuration(for invocation: Invocation, from dataSource: ShieldConfigurationDataSource)
        -> ShieldConfiguration
    {
        if let category = invocation.category {
            let inCategory = dataSource.configuration(shielding: invocation.application, in: category)
            if inCategory != ShieldConfiguration() { return inCategory }
        }
        return dataSource.configuration(shielding: invocation.application)
    }

    /// Parses this process's arguments, prints the configuration as one line of JSON and exits: status 0, or 64
    /// (`EX_USAGE`) with the problem on standard error.
    public static func run(_ dataSource: ShieldConfigurationDataSource) -> Never {
        ExtensionEntry.answer {
            let invocation = try parse(arguments: Array(CommandLine.arguments.dropFirst()))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return String(decoding: try encoder.encode(configuration(for: invocation, from: dataSource)), as: UTF8.self)
        }
    }

    /// Arguments that are not an invocation of a shield-configuration extension.
    public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String {
            "\(message)\nusage: EXE --shield-configuration --application TOKEN [--category TOKEN]"
        }
    }
}
