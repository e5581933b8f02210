import Foundation
import ScreenTimeEngine
import Testing

@testable import ScreenTimeDaemon

/// The last good policy outlives the daemon: a restart while the file is refused enforces the text last accepted.
@Suite struct PolicySourcesTests {
    static let good = "[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"20s\"\n"

    /// Individual mode's settings with `text` as the policy file, in a scratch folder (the ledger's under `state/`).
    static func individualPolicy(_ text: String) throws -> (ScratchDirectory, DaemonSettings) {
        let directory = try ScratchDirectory()
        var settings = DaemonSettings.defaults(system: false)
        settings.policyPath = directory.path + "/policy.toml"
        settings.databasePath = directory.path + "/state/usage.sqlite"
        try text.write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        return (directory, settings)
    }

    @Test func aRestartWhileThePolicyIsRefusedEnforcesItsLastGoodText() throws {
        let (directory, settings) = try Self.individualPolicy(Self.good)
        let good = Self.good
        var first = PolicySources(settings: settings)
        #expect(first.read(at: .init(nanoseconds: 0)).scopes?.first?.policy.limits.first?.daily == .seconds(20))
        let copy = directory.path + "/state/last-good-policies/policy.toml"
        #expect(FileManager.default.contents(atPath: copy) == Data(good.utf8))

        // Refused while running: the policy in force stays, the copy is not touched.
        try good.replacingOccurrences(of: "20s", with: "0s").write(
            toFile: settings.policyPath, atomically: true, encoding: .utf8)
        let refused = first.read(at: .init(nanoseconds: 0))
        #expect(refused.error != nil && refused.scopes == nil)
        #expect(FileManager.default.contents(atPath: copy) == Data(good.utf8))

        // Refused at start: the copy is in force, and the error is still reported.
        var second = PolicySources(settings: settings)
        let restarted = second.read(at: .init(nanoseconds: 0))
        #expect(restarted.error?.problems.first?.message.contains("0s") == true)
        #expect(restarted.restoredCopies == [copy])
        #expect(restarted.scopes?.first?.policy.limits.first?.daily == .seconds(20))

        // Fixed: the new text is in force and becomes the copy.
        let fixed = good.replacingOccurrences(of: "20s", with: "30s")
        try fixed.write(toFile: settings.policyPath, atomically: true, encoding: .utf8)
        #expect(second.read(at: .init(nanoseconds: 0)).scopes?.first?.policy.limits.first?.daily == .seconds(30))
        #expect(FileManager.default.contents(atPath: copy) == Data(fixed.utf8))
    }

    /// An editor that saves by removing the file and writing it anew leaves a gap: the policy holds through it. A
    /// file removed for longer than the grace limits nobody, and its copy goes with it.
    @Test func aMissingPolicyFileStaysInForceForTheGraceAndNoLonger() throws {
        let (directory, settings) = try Self.individualPolicy(Self.good)
        var sources = PolicySources(settings: settings)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        #expect(sources.read(at: start).scopes?.first?.policy.limits.count == 1)
        let copy = directory.path + "/state/last-good-policies/policy.toml"
        let aside = directory.path + "/policy.toml~"

        // Renamed aside, read, and written back within the grace: in force throughout.
        #expect(rename(settings.policyPath, aside) == 0)
        #expect(sources.changed())
        let gap = sources.read(at: start + .milliseconds(5))
        #expect(gap.missing == [settings.policyPath] && gap.removed.isEmpty && gap.error == nil)
        #expect(gap.scopes?.first?.policy.limits.count == 1)
        #expect(!sources.removalDue(at: start + .seconds(2)))
        #expect(rename(aside, settings.policyPath) == 0)
        let back = sources.read(at: start + .milliseconds(10))
        #expect(back.missing.isEmpty && back.removed.isEmpty)
        #expect(back.scopes?.first?.policy.limits.count == 1)
        #expect(!sources.removalDue(at: start + .seconds(10)))

        // Removed: still in force within the grace, lifted once it is over, the copy removed.
        try FileManager.default.removeItem(atPath: settings.policyPath)
        let removing = start + .seconds(20)
        #expect(sources.read(at: removing).scopes?.first?.policy.limits.count == 1)
        #expect(!sources.removalDue(at: removing + PolicySources.removalGrace - .milliseconds(1)))
        #expect(sources.removalDue(at: removing + PolicySources.removalGrace))
        let lifted = sources.read(at: removing + PolicySources.removalGrace)
        #expect(lifted.removed == [settings.policyPath])
        #expect(lifted.scopes?.isEmpty == true)
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(!sources.removalDue(at: removing + .seconds(60)))
        // The file the policy path expects says why nothing is in force.
        #expect(lifted.error?.problems.first?.file == settings.policyPath)
    }

    /// A link that leads nowhere is not a removed file: it is refused, and the last good policy stays.
    @Test func aDanglingLinkKeepsTheLastGoodPolicy() throws {
        let (directory, settings) = try Self.individualPolicy(Self.good)
        var sources = PolicySources(settings: settings)
        let start = MonotonicInstant(nanoseconds: 0)
        #expect(sources.read(at: start).scopes?.first?.policy.limits.count == 1)
        try FileManager.default.removeItem(atPath: settings.policyPath)
        #expect(symlink(directory.path + "/nowhere.toml", settings.policyPath) == 0)
        let later = sources.read(at: start + .seconds(60))
        #expect(later.missing.isEmpty && later.removed.isEmpty)
        #expect(later.error != nil && later.scopes == nil)
        #expect(!sources.removalDue(at: start + .seconds(120)))
        let copy = directory.path + "/state/last-good-policies/policy.toml"
        #expect(FileManager.default.fileExists(atPath: copy))
    }
}
