import Dispatch
import ManagedSettings
import Testing

/// `ShieldActionExtensionMain`: the arguments the daemon passes, the delegate's override called for them, and its
/// answer waited for even when it comes later from another thread.
@Suite struct ShieldActionEntryPointTests {
    final class Buttons: ShieldActionDelegate, @unchecked Sendable {
        var calls: [String] = []
        override func handle(
            action: ShieldAction, for application: ApplicationToken,
            completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
        ) {
            calls.append("app \(application.rawValue) \(action)")
            // Answers later, from another thread, as a delegate that asks something first would.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                completionHandler(action == .primaryButtonPressed ? .close : .defer)
            }
        }
        override func handle(
            action: ShieldAction, for category: ActivityCategoryToken,
            completionHandler: @escaping @Sendable (ShieldActionResponse) -> Void
        ) {
            calls.append("category \(category.rawValue) \(action)")
            completionHandler(.none)
        }
    }

    @Test func theDaemonsArgumentsReachTheOverrideAndItsLateAnswerIsWaitedFor() throws {
        let buttons = Buttons()
        let secondary = try ShieldActionExtensionMain.parse(
            arguments: ["--shield-action", "--action", "secondaryButtonPressed", "--application", "app.abc"])
        #expect(secondary == .init(action: .secondaryButtonPressed, subject: .application(ApplicationToken(rawValue: "app.abc"))))
        #expect(ShieldActionExtensionMain.response(for: secondary, from: buttons) == .defer)
        let primary = try ShieldActionExtensionMain.parse(
            arguments: ["--shield-action", "--action", "primaryButtonPressed", "--application", "app.abc"])
        #expect(ShieldActionExtensionMain.response(for: primary, from: buttons) == .close)
        let category = try ShieldActionExtensionMain.parse(
            arguments: ["--action", "primaryButtonPressed", "--category", "category.games"])
        #expect(ShieldActionExtensionMain.response(for: category, from: buttons) == ShieldActionResponse.none)
        #expect(
            buttons.calls == [
                "app app.abc secondaryButtonPressed", "app app.abc primaryButtonPressed",
                "category category.games primaryButtonPressed",
            ])
    }

    @Test func theDefaultDelegateClosesTheApp() throws {
        let invocation = try ShieldActionExtensionMain.parse(
            arguments: ["--action", "secondaryButtonPressed", "--web-domain", "web.example"])
        #expect(ShieldActionExtensionMain.response(for: invocation, from: ShieldActionDelegate()) == .close)
    }

    @Test(
        arguments: [
            ([], "no --action given"),
            (["--action", "tertiaryButtonPressed", "--application", "a"], "unknown action tertiaryButtonPressed"),
            (["--action", "primaryButtonPressed"], "no --application, --category or --web-domain given"),
            (["--action", "primaryButtonPressed", "--application"], "--application needs a value"),
            (["--colour", "red"], "unexpected argument --colour"),
        ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) {
        #expect(throws: ShieldActionExtensionMain.UsageError.self) { try ShieldActionExtensionMain.parse(arguments: arguments) }
        do {
            _ = try ShieldActionExtensionMain.parse(arguments: arguments)
        } catch {
            #expect(error.message.hasPrefix(message))
        }
    }
}
