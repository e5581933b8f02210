import Foundation
import Glibc
import Synchronization

/// The entry point of a shield-action extension: a program that links `ManagedSettings`, subclasses
/// `ShieldActionDelegate`, and is declared in its app's desktop entry as `X-ScreenTime-ShieldAction=/path/to/program`.
/// When someone presses a button of a shield one of the app's stores put up, `screentimed` runs it as
/// `EXE --shield-action --action primaryButtonPressed|secondaryButtonPressed --application TOKEN` (or
/// `--category TOKEN`, `--web-domain TOKEN`), and does what the one line it prints says: `close` closes the shielded
/// app, `defer` shows the shield again, `none` leaves it as it is.
///
/// ```swift
/// final class Buttons: ShieldActionDelegate {
///     override func handle(action: ShieldAction, for application: ApplicationToken,
///                          completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void) {
///         completionHandler(action == .primaryButtonPressed ? .close : .defer)
///     }
/// }
/// @main struct Main { static func main() { ShieldActionExtensionMain.run(Buttons()) } }
/// ```
public enum ShieldActionExtensionMain {
    /// The button pressed and what the shield covers.
    public struct Invocation: Hashable, Sendable {
        public enum Subject: Hashable, Sendable {
            case application(ApplicationToken)
            case category(ActivityCategoryToken)
            case webDomain(WebDomainToken)
        }

        public var action: ShieldAction
        public var subject: Subject

        public init(action: ShieldAction, subject: Subject) {
            self.action = action
            self.subject = subject
        }
    }

    /// Reads the invocation from `arguments` (without the program's name).
    ///
    /// - Throws: a message naming the argument that is wrong and the expected usage.
    public static func parse(arguments: [String]) throws(UsageError) -> Invocation {
        var action: ShieldAction?
        var subject: Invocation.Subject?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--shield-action" { continue }
            guard ["--action", "--application", "--category", "--web-domain"].contains(argument) else {
                throw UsageError(message: "unexpected argument \(argument)")
            }
            guard let value = remaining.popFirst(), !value.isEmpty else { throw UsageError(message: "\(argument) needs a value") }
            switch argument {
            case "--action":
                guard let pressed = ShieldAction(rawValue: value) else {
                    let known = ShieldAction.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(message: "unknown action \(value) (one of \(known))")
                }
                action = pressed
            case "--application": subject = .application(ApplicationToken(rawValue: value))
            case "--category": subject = .category(ActivityCategoryToken(rawValue: value))
            default: subject = .webDomain(WebDomainToken(rawValue: value))
            }
        }
        guard let action else { throw UsageError(message: "no --action given") }
        guard let subject else { throw UsageError(message: "no --application, --category or --web-domain given") }
        return Invocation(action: action, subject: subject)
    }

    /// The response `delegate` gives for `invocation`, waiting for its completion handler (which it may call later,
    /// from any thread but the main one, which waits here).
    public static func response(for invocation: Invocation, from delegate: ShieldActionDelegate) -> ShieldActionResponse {
        let answered = DispatchSemaphore(value: 0)
        let response = Mutex<ShieldActionResponse>(.none)
        let completion: @Sendable (ShieldActionResponse) -> Void = { given in
            response.withLock { $0 = given }
            answered.signal()
        }
        switch invocation.subject {
        case .application(let token): delegate.handle(action: invocation.action, for: token, completionHandler: completion)
        case .category(let token): delegate.handle(action: invocation.action, for: token, completionHandler: completion)
        case .webDomain(let token): delegate.handle(action: invocation.action, for: token, completionHandler: completion)
        }
        answered.wait()
        return response.withLock { $0 }
    }

    /// Parses this process's arguments, prints the delegate's response as one line and exits: status 0, or 64
    /// (`EX_USAGE`) with the problem on standard error.
    public static func run(_ delegate: ShieldActionDelegate) -> Never {
        ExtensionEntry.answer {
            response(for: try parse(arguments: Array(CommandLine.arguments.dropFirst())), from: delegate).rawValue
        }
    }

    /// Arguments that are not an invocation of a shield-action extension.
    public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String {
            "\(message)\nusage: EXE --shield-action --action primaryButtonPressed|secondaryButtonPressed "
                + "(--application TOKEN | --category TOKEN | --web-domain TOKEN)"
        }
    }
}
