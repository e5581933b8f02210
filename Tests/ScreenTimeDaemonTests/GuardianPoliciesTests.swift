import Foundation
import Glibc
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// A guardian's policies: the default one for every regular user it does not exempt, a user's own for that user.
@Suite struct GuardianPoliciesTests {
    static let alice = GuardianPolicies.Account(name: "alice", uid: UserID(1001))
    static let bob = GuardianPolicies.Account(name: "bob", uid: UserID(1002))
    static let carol = GuardianPolicies.Account(name: "carol", uid: UserID(1003))
    static let defaultFile = GuardianPolicies.File(path: "/etc/screentime/default.toml", user: nil)

    static func games(_ daily: String, exempt: String = "", role: Policy.Role = .guardianDefault) throws -> Policy {
        try Policy.diagnose(
            "\(exempt)\n[[limit]]\nname = \"games\"\napps = [\"org.example.Game\"]\ndaily = \"\(daily)\"\n",
            file: "test.toml", role: role
        ).get()
    }

    static func userFile(_ name: String) -> GuardianPolicies.File {
        GuardianPolicies.File(path: "/etc/screentime/users/\(name).toml", user: name)
    }

    @Test func theDefaultPolicyCoversEveryRegularUserWithoutAFileOfTheirOwnButTheExempt() throws {
        let coverage = GuardianPolicies.coverage(
            of: [
                (Self.defaultFile, try Self.games("20s", exempt: "exempt = [\"carol\"]")),
                (Self.userFile("alice"), try Self.games("40s", role: .guardianUser)),
            ],
            accounts: [Self.alice, Self.bob, Self.carol], lookUp: { _ in nil })
        #expect(coverage.problems.isEmpty)
        #expect(coverage.covered.map(\.file) == [Self.defaultFile, Self.userFile("alice")])
        #expect(coverage.covered.map { $0.users.map(\.name) } == [["bob"], ["alice"]])
    }

    @Test func aUserFileNamingNoUserLimitsNobodyAndSaysSo() throws {
        let coverage = GuardianPolicies.coverage(
            of: [(Self.userFile("ghost"), try Self.games("40s", role: .guardianUser))], accounts: [Self.alice],
            lookUp: { _ in nil })
        #expect(coverage.covered.isEmpty)
        #expect(
            coverage.problems.map(\.description) == [
                "/etc/screentime/users/ghost.toml:1:1: no user named \"ghost\" on this system: the file limits nobody; "
                    + "name it after a user (`getent passwd` lists them)"
            ])
    }

    @Test func aUserFileMayNameAUserBelowUID1000() throws {
        let root = GuardianPolicies.Account(name: "root", uid: UserID(0))
        let coverage = GuardianPolicies.coverage(
            of: [(Self.userFile("root"), try Self.games("1h", role: .guardianUser))], accounts: [Self.alice],
            lookUp: { $0 == "root" ? root : nil })
        #expect(coverage.covered.map { $0.users } == [[root]])
    }

    @Test func exemptBelongsOnlyInTheDefaultPolicy() {
        for role in [Policy.Role.guardianUser, .individual] {
            let diagnosis = Policy.diagnose("exempt = [\"carol\"]\n", file: "p.toml", role: role)
            guard case .failure(let error) = diagnosis.result else {
                Issue.record("exempt accepted in a \(role) policy")
                continue
            }
            #expect(error.problems.map { ($0.line, $0.column) }.first! == (1, 1))
            #expect(error.problems.first?.message.contains("/etc/screentime/default.toml") == true)
        }
        #expect((try? Self.games("1h", exempt: "exempt = [\"carol\"]"))?.exempt == ["carol"])
    }

    @Test func aLimitNameMayNotHoldTheSeparatorsOfActivityNames() {
        let diagnosis = Policy.diagnose("[[limit]]\nname = \"games@night\"\ndaily = \"1h\"\n", file: "p.toml")
        guard case .failure(let error) = diagnosis.result else {
            Issue.record("a name with @ was accepted")
            return
        }
        #expect(error.problems.first?.description.hasPrefix("p.toml:2:8: `name` must not hold `@`") == true)
    }

    static func plan() throws -> PolicyPlan {
        PolicyPlan(
            scopes: [
                PolicyPlan.Scope(policy: try games("20s"), users: [Self.bob.uid]),
                PolicyPlan.Scope(
                    policy: try games("40s", role: .guardianUser), users: [Self.alice.uid], qualifier: "alice"),
            ],
            appToken: { DaemonRuntimeTests.token($0.rawValue) }, categoryToken: { DaemonRuntimeTests.category($0) })
    }

    @Test func aUsersOwnPolicyHasActivitiesAndStoresOfItsOwn() throws {
        let plan = try Self.plan()
        #expect(plan.registrations.map(\.name.rawValue) == ["limit.games", "limit.games@alice"])
        #expect(plan.registrations.map(\.users) == [[Self.bob.uid], [Self.alice.uid]])
        #expect(plan.limits.map(\.store.rawValue) == ["limit.games", "limit.games@alice"])
        #expect(plan.limits(of: Self.alice.uid).map(\.daily) == [.seconds(40)])
        #expect(plan.limits(of: Self.bob.uid).map(\.daily) == [.seconds(20)])
        #expect(plan.covers(Self.alice.uid) && plan.covers(Self.bob.uid) && !plan.covers(Self.carol.uid))
        #expect(plan.limit(for: DeviceActivityName("extra.games@alice.1001.5"))?.key == "games@alice")
    }

    @Test func extraTimeFindsItsLimitWhenOneUsersNameBeginsWithAnothersAndADot() throws {
        let plan = PolicyPlan(
            scopes: [
                PolicyPlan.Scope(
                    policy: try Self.games("20s", role: .guardianUser), users: [UserID(1001)], qualifier: "ana"),
                PolicyPlan.Scope(
                    policy: try Self.games("40s", role: .guardianUser), users: [UserID(1002)], qualifier: "ana.zed"),
            ],
            appToken: { DaemonRuntimeTests.token($0.rawValue) }, categoryToken: { DaemonRuntimeTests.category($0) })
        #expect(plan.limit(for: DeviceActivityName("extra.games@ana.zed.1002.5"))?.key == "games@ana.zed")
        #expect(plan.limit(for: DeviceActivityName("extra.games@ana.zed.1002.shield.6"))?.key == "games@ana.zed")
        #expect(plan.limit(for: DeviceActivityName("extra.games@ana.1001.7"))?.key == "games@ana")
        #expect(plan.limit(for: DeviceActivityName("extra.games@bob.1003.7")) == nil)
    }

    /// `seconds` ticks with the game in front of each of `accounts`, in a session of their own.
    static func play(
        _ seconds: Int, _ accounts: [GuardianPolicies.Account], in harness: inout DaemonRuntimeTests.Harness
    ) {
        for _ in 0..<seconds {
            harness.advance(1)
            harness.revision += 1
            let samples = accounts.map { account in
                UsageSample(
                    user: account.uid, session: SessionID("s\(account.uid.rawValue)"), presence: .active,
                    applicationsInUse: [DaemonRuntimeTests.game])
            }
            harness.handle(.tick(samples, revision: harness.revision))
        }
    }

    /// Whether the game is shielded for `account`.
    static func shielded(_ account: GuardianPolicies.Account, in harness: DaemonRuntimeTests.Harness) -> Bool {
        harness.runtime.shields[account.uid]?.shields(DaemonRuntimeTests.game) ?? false
    }

    @Test func eachUserIsShieldedAtTheirOwnPolicysLimit() throws {
        var harness = DaemonRuntimeTests.Harness()
        harness.handle(.restarted(nil))
        harness.handle(.policyLoaded(try Self.plan()))
        func use(_ seconds: Int) { Self.play(seconds, [Self.alice, Self.bob, Self.carol], in: &harness) }
        func shielded(_ account: GuardianPolicies.Account) -> Bool { Self.shielded(account, in: harness) }
        use(22)
        #expect(shielded(Self.bob))
        #expect(!shielded(Self.alice))
        #expect(!shielded(Self.carol))
        use(20)
        #expect(shielded(Self.alice))
        #expect(!shielded(Self.carol))
        let status = DaemonStatus(runtime: harness.runtime, at: harness.now, movedAside: [])
        let limits: [String] = status.rows.filter { $0.kind == "limit" }.map { row in
            "\(row.user):\(row.limitSeconds ?? 0)"
        }
        #expect(limits.sorted() == ["1001:40", "1002:20"])
        // What reports read: each user's own limit of the day, none for the user no policy covers (written again
        // after a reload).
        harness.handle(.policyLoaded(try Self.plan()))
        let written = harness.runtime.flush(at: harness.now)
        let recorded = DaemonRuntimeTests.writes([written]).flatMap(\.records.dailyLimits)
        #expect(recorded.map { "\($0.uid):\($0.limit)=\($0.seconds)" }.sorted() == ["1001:games=40", "1002:games=20"])
    }

    @Test func aUserThePolicyNoLongerCoversIsReleasedFromItsShields() throws {
        var harness = DaemonRuntimeTests.Harness()
        harness.handle(.restarted(nil))
        harness.handle(.policyLoaded(try Self.plan()))
        func use(_ seconds: Int) { Self.play(seconds, [Self.alice, Self.bob], in: &harness) }
        func shielded(_ account: GuardianPolicies.Account) -> Bool { Self.shielded(account, in: harness) }
        use(22)
        #expect(shielded(Self.bob))
        // The guardian exempts bob: the default policy covers nobody now, alice keeps her own.
        harness.handle(
            .policyLoaded(
                PolicyPlan(
                    scopes: [
                        PolicyPlan.Scope(policy: try Self.games("20s"), users: []),
                        PolicyPlan.Scope(
                            policy: try Self.games("40s", role: .guardianUser), users: [Self.alice.uid],
                            qualifier: "alice"),
                    ],
                    appToken: { DaemonRuntimeTests.token($0.rawValue) },
                    categoryToken: { DaemonRuntimeTests.category($0) })))
        use(1)
        #expect(!shielded(Self.bob))
        use(20)
        #expect(shielded(Self.alice))
        #expect(!shielded(Self.bob))
    }

    /// Real files in a root-only folder: each file's last good policy stays when an edit is refused, and a removed
    /// file limits nobody. Needs root; under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func eachFileKeepsItsLastGoodPolicyAndARemovedOneLimitsNobody() throws {
        let folder = try GuardianPolicyFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let users = folder + "/users"
        mkdir(users, 0o755)
        func write(_ text: String, to path: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o644)
        }
        let limit = "[[limit]]\nname = \"games\"\napps = [\"org.example.Game\"]\ndaily = \"%@\"\n"
        try write(String(format: limit, "20s"), to: folder + "/default.toml")
        try write(String(format: limit, "1h"), to: users + "/root.toml")
        var settings = DaemonSettings.defaults(system: true)
        settings.policyPath = folder + "/default.toml"
        settings.userPoliciesFolder = users
        settings.databasePath = folder + "/state/usage.sqlite"
        var sources = PolicySources(settings: settings)
        let start = MonotonicInstant(nanoseconds: 0)
        let first = sources.read(at: start)
        #expect(first.error == nil)
        #expect(first.scopes?.map(\.qualifier) == [nil, "root"])
        #expect(first.scopes?.last?.users == [UserID(0)])
        #expect(!sources.changed())

        try write(String(format: limit, "0s"), to: users + "/root.toml")
        #expect(sources.changed())
        let refused = sources.read(at: start)
        #expect(refused.error?.problems.first?.file == users + "/root.toml")
        #expect(refused.scopes?.last?.policy.limits.first?.daily == .seconds(3600))

        chown(folder + "/default.toml", 1000, 1000)
        let untrusted = sources.read(at: start)
        #expect(untrusted.error?.problems.contains { $0.message.contains("belongs to uid 1000, not root") } == true)
        #expect(untrusted.scopes?.first?.policy.limits.first?.daily == .seconds(20))

        chown(folder + "/default.toml", 0, 0)
        #expect(sources.read(at: start).error?.problems.map(\.file) == [users + "/root.toml"])
        // A restart while root.toml is refused enforces its last good text, kept beside the ledger.
        var restarted = PolicySources(settings: settings)
        let afterRestart = restarted.read(at: start)
        #expect(afterRestart.error?.problems.map(\.file) == [users + "/root.toml"])
        #expect(afterRestart.restoredCopies == [folder + "/state/last-good-policies/user.root.toml"])
        #expect(afterRestart.scopes?.map(\.qualifier) == [nil, "root"])
        #expect(afterRestart.scopes?.last?.policy.limits.first?.daily == .seconds(3600))

        // Removed: in force for the grace (an editor may be writing it anew), then lifted.
        unlink(users + "/root.toml")
        #expect(sources.read(at: start).scopes?.map(\.qualifier) == [nil, "root"])
        #expect(sources.read(at: start + PolicySources.removalGrace).scopes?.map(\.qualifier) == [nil])
        // Its copy goes with it: a later start doesn't bring the removed file's limits back.
        #expect(!FileManager.default.fileExists(atPath: folder + "/state/last-good-policies/user.root.toml"))

        // Removed from a folder others could write: not the guardian's word; kept in force, and said.
        try write(String(format: limit, "1h"), to: users + "/root.toml")
        #expect(sources.read(at: start).scopes?.map(\.qualifier) == [nil, "root"])
        chmod(users, 0o777)
        unlink(users + "/root.toml")
        let unguarded = sources.read(at: start + .seconds(60))
        #expect(unguarded.scopes?.map(\.qualifier) == [nil, "root"])
        #expect(unguarded.error?.problems.first?.message.contains("the file is gone, but the folder") == true)
        chmod(users, 0o755)
    }
}

extension GuardianPoliciesTests {
    /// A directory that does not enumerate its users (SSSD's default) leaves them out of the password database's list
    /// (a stand-in here: no real directory can be set up on demand): the default policy covers each of them from
    /// their first login session on, looked up by uid, unless it exempts them; one nobody can name yet is asked for again
    /// each minute. Needs root (the policy in a root-only folder); under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aUserTheDirectoryDoesNotListIsCoveredFromTheirFirstSession() throws {
        let folder = try GuardianPolicyFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        mkdir(folder + "/users", 0o755)
        try Data(
            "exempt = [\"erin\"]\n[[limit]]\nname = \"games\"\napps = [\"org.example.Game\"]\ndaily = \"20s\"\n".utf8
        ).write(to: URL(fileURLWithPath: folder + "/default.toml"))
        chmod(folder + "/default.toml", 0o644)
        var settings = DaemonSettings.defaults(system: true)
        settings.policyPath = folder + "/default.toml"
        settings.userPoliciesFolder = folder + "/users"
        settings.databasePath = folder + "/state/usage.sqlite"
        final class Directory: @unchecked Sendable {
            var accounts: [UserID: GuardianPolicies.Account] = [:]
        }
        let directory = Directory()
        let dana = GuardianPolicies.Account(name: "dana", uid: UserID(1_500_001))
        let erin = GuardianPolicies.Account(name: "erin", uid: UserID(1_500_002))
        let frank = GuardianPolicies.Account(name: "frank", uid: UserID(1_500_003))
        directory.accounts = [dana.uid: dana, erin.uid: erin]
        var sources = PolicySources(settings: settings)
        sources.listAccounts = { [Self.alice] }
        sources.lookUpAccount = { directory.accounts[$0] }
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        func covered(at now: MonotonicInstant) -> Set<UserID>? { sources.read(at: now).scopes?.first?.users }
        func note(_ users: [UserID], at now: MonotonicInstant) -> Bool { sources.noteUsers(users, at: now) }

        #expect(covered(at: start) == [Self.alice.uid])
        // Seen in a session: covered, also without a policy file's change. Root is no regular user.
        #expect(note([Self.alice.uid, UserID(0), dana.uid], at: start))
        #expect(covered(at: start) == [Self.alice.uid, dana.uid])
        #expect(!note([Self.alice.uid, dana.uid], at: start))
        // Exempt by name: left alone.
        #expect(note([erin.uid], at: start))
        #expect(covered(at: start) == [Self.alice.uid, dana.uid])
        // Nobody can name frank yet: not covered, and asked for again a minute later, when the directory knows him.
        #expect(note([frank.uid], at: start))
        #expect(covered(at: start) == [Self.alice.uid, dana.uid])
        directory.accounts[frank.uid] = frank
        #expect(!note([frank.uid], at: start + .seconds(59)))
        #expect(note([frank.uid], at: start + PolicySources.lookupRetry))
        #expect(covered(at: start + PolicySources.lookupRetry) == [Self.alice.uid, dana.uid, frank.uid])
        #expect(!note([frank.uid], at: start + .seconds(600)))
    }
}

/// A guardian policy's extensions run as the users it limits, never as root or the daemon's own account.
@Suite struct GuardianExtensionCallTests {
    @Test func anEventsExtensionRunsAsItsUserAndAnIntervalsOnceForEachUserSeen() throws {
        var harness = DaemonRuntimeTests.Harness()
        harness.runtime = DaemonRuntime(
            settings: DaemonSettings(
                system: true, policyPath: "/nonexistent/default.toml", databasePath: "/nonexistent/usage.sqlite",
                enforcementStatePath: "/nonexistent/enforcement.json", tokenKeyPath: "/nonexistent/token.key",
                users: nil))
        harness.handle(.restarted(nil))
        let policy = try Policy.diagnose(
            "[[limit]]\nname = \"games\"\napps = [\"org.example.Game\"]\ndaily = \"5s\"\n"
                + "extension = \"/usr/local/bin/ext\"\n",
            file: "alice.toml", role: .guardianUser
        ).get()
        let plan = PolicyPlan(
            scopes: [PolicyPlan.Scope(policy: policy, users: [GuardianPoliciesTests.alice.uid], qualifier: "alice")],
            appToken: { DaemonRuntimeTests.token($0.rawValue) }, categoryToken: { DaemonRuntimeTests.category($0) })
        harness.handle(.policyLoaded(plan))
        var actions: [DaemonRuntime.Action] = []
        for _ in 0..<7 {
            harness.advance(1)
            harness.revision += 1
            let samples = [GuardianPoliciesTests.alice, GuardianPoliciesTests.bob].map { account in
                UsageSample(
                    user: account.uid, session: SessionID("s\(account.uid.rawValue)"), presence: .active,
                    applicationsInUse: [DaemonRuntimeTests.game])
            }
            actions += harness.handle(.tick(samples, revision: harness.revision))
        }
        let runs = actions.compactMap { action -> (String, String, UserID?)? in
            guard case .runExtension(_, let callback, let activity, _, let user) = action else { return nil }
            return (callback.rawValue, activity, user)
        }
        #expect(runs.map(\.0) == ["eventDidReachThreshold"])
        #expect(runs.map(\.1) == ["limit.games"])
        #expect(runs.map(\.2) == [GuardianPoliciesTests.alice.uid])

        // A new day: the interval's callbacks run once for each user the policy limits who has been seen (alice).
        harness.advance(14 * 3600)
        let day = harness.handle(.wakeUp) + harness.handle(.tick([], revision: harness.revision + 1))
        let users = day.compactMap { action -> UserID?? in
            guard case .runExtension(_, .intervalDidStart, _, _, let user) = action else { return nil }
            return user
        }
        #expect(users == [GuardianPoliciesTests.alice.uid])
    }
}
