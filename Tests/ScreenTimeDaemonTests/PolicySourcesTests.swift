import Foundation
import Testing

@testable import ScreenTimeDaemon

/// The last good policy outlives the daemon: a restart while the file is refused enforces the text last accepted.
@Suite struct PolicySourcesTests {
    @Test func aRestartWhileThePolicyIsRefusedEnforcesItsLastGoodText() throws {
        let directory = try ScratchDirectory()
        var settings = DaemonSettings.defaults(system: false)
        settings.policyPath = directory.path + "/policy.toml"
        settings.databasePath = directory.path + "/state/usage.sqlite"
        let good = "[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"20s\"\n"
        try good.write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        var first = PolicySources(settings: settings)
        #expect(first.read().scopes?.first?.policy.limits.first?.daily == .seconds(20))
        let copy = directory.path + "/state/last-good-policies/policy.toml"
        #expect(FileManager.default.contents(atPath: copy) == Data(good.utf8))

        // Refused while running: the policy in force stays, the copy is not touched.
        try good.replacingOccurrences(of: "20s", with: "0s").write(
            toFile: settings.policyPath, atomically: true, encoding: .utf8)
        let refused = first.read()
        #expect(refused.error != nil && refused.scopes == nil)
        #expect(FileManager.default.contents(atPath: copy) == Data(good.utf8))

        // Refused at start: the copy is in force, and the error is still reported.
        var second = PolicySources(settings: settings)
        let restarted = second.read()
        #expect(restarted.error?.problems.first?.message.contains("0s") == true)
        #expect(restarted.restoredCopies == [copy])
        #expect(restarted.scopes?.first?.policy.limits.first?.daily == .seconds(20))

        // Fixed: the new text is in force and becomes the copy.
        let fixed = good.replacingOccurrences(of: "20s", with: "30s")
        try fixed.write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        #expect(second.read().scopes?.first?.policy.limits.first?.daily == .seconds(30))
        #expect(FileManager.default.contents(atPath: copy) == Data(fixed.utf8))
    }
}
