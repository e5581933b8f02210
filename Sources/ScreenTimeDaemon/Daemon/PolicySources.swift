import Foundation
import ScreenTimeModel

/// The policy files the daemon reads and the last good policy of each: one file in individual mode; in guardian
/// mode the default policy and each user's own (`GuardianPolicies`), each kept when a new version is refused, so
/// that one bad file never lifts anyone's limits.
struct PolicySources {
    let settings: DaemonSettings
    /// Each file's last good policy, by path.
    private var lastGood: [String: Policy] = [:]
    /// What the files looked like when last read (and the password database, in guardian mode).
    private var stamps: [String: FileStamp?] = [:]

    /// What a reading gave.
    struct Reading {
        /// The scopes of the plan; nil when no file changed what is in force.
        var scopes: [PolicyPlan.Scope]?
        /// Every file's mistakes (the policy in force keeps that file's last good policy).
        var error: PolicyError?
        /// The apps the guardian's policies limit (their programs are also known by content).
        var limitedApps: Set<AppID>
    }

    init(settings: DaemonSettings) {
        self.settings = settings
    }

    private var files: [GuardianPolicies.File] {
        guard let folder = settings.userPoliciesFolder else {
            return [GuardianPolicies.File(path: settings.policyPath, user: nil)]
        }
        // The guardian's default policy moves from the legacy path to default.toml as soon as that one is written.
        let legacy = settings.policyPath == Policy.systemDefaultPath || settings.policyPath == Policy.legacySystemPath
        return GuardianPolicies.files(
            defaultPath: legacy ? Policy.systemPath() : settings.policyPath, usersFolder: folder)
    }

    /// The paths whose change means a reread: the files, and in guardian mode the users' folder and the password
    /// database (a new user falls under the default policy).
    var watchedPaths: [String] {
        guard let folder = settings.userPoliciesFolder else { return [settings.policyPath] }
        return [settings.policyPath, Policy.legacySystemPath, folder + "/", "/etc/passwd"]
    }

    /// Guardian mode: several files, each covering its users.
    private var guardian: Bool { settings.userPoliciesFolder != nil }

    /// Whether anything read changed since the last reading.
    func changed() -> Bool { stamps(of: files) != stamps }

    private func stamps(of files: [GuardianPolicies.File]) -> [String: FileStamp?] {
        var current: [String: FileStamp?] = [:]
        for file in files { current[file.path] = FileStamp(path: file.path) }
        if guardian { current["/etc/passwd"] = FileStamp(path: "/etc/passwd") }
        return current
    }

    /// Reads every file.
    mutating func read() -> Reading {
        let files = files
        stamps = stamps(of: files)
        var problems: [PolicyError.Problem] = []
        var changed = false
        for file in files {
            let diagnosis = Policy.diagnose(fileAt: file.path, role: guardian ? file.role : .individual)
            switch diagnosis.result {
            case .success(let policy):
                if lastGood[file.path] != policy { changed = true }
                lastGood[file.path] = policy
            case .failure(let error):
                problems += error.problems
            }
        }
        // A file removed by the guardian (or a default policy no longer read) no longer limits anyone.
        let paths = Set(files.map(\.path))
        for path in lastGood.keys where !paths.contains(path) {
            lastGood[path] = nil
            changed = true
        }
        let usable = files.compactMap { file in lastGood[file.path].map { (file: file, policy: $0) } }
        var scopes: [PolicyPlan.Scope]
        var limited: Set<AppID> = []
        if !guardian {
            scopes = usable.map { PolicyPlan.Scope(policy: $0.policy) }
        } else {
            let coverage = GuardianPolicies.coverage(
                of: usable, accounts: GuardianPolicies.regularAccounts(), lookUp: GuardianPolicies.account(named:))
            problems += coverage.problems
            scopes = coverage.covered.map { entry in
                PolicyPlan.Scope(
                    policy: entry.policy, users: Set(entry.users.map(\.uid)), qualifier: entry.file.user)
            }
            for entry in coverage.covered { limited.formUnion(entry.policy.limits.flatMap(\.applications)) }
            // Who is covered may change without any policy changing (a new user).
            changed = true
        }
        // Without mistakes the plan is applied again (a file fixed back to its last good text clears the error).
        return Reading(
            scopes: changed || problems.isEmpty ? scopes : nil, error: PolicyError(problems: problems),
            limitedApps: limited)
    }
}
