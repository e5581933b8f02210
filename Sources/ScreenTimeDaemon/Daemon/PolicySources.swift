import Enforcement
import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import SystemPackage

/// The policy files the daemon reads and the last good policy of each: one file in individual mode; in guardian
/// mode the default policy and each user's own (`GuardianPolicies`), each kept when a new version is refused, so
/// that one bad file never lifts anyone's limits. The last good text of each is also kept on disk
/// (`DaemonSettings.lastGoodPoliciesFolder`): a restart while a file is refused enforces that text. A file that goes
/// missing keeps its policy in force for `removalGrace` (an editor that saves by writing a new file leaves a gap);
/// removed for longer, it limits nobody.
struct PolicySources {
    let settings: DaemonSettings
    /// Each file's last good policy, by path.
    private var lastGood: [String: (file: GuardianPolicies.File, policy: Policy)] = [:]
    /// The files read before that are missing now, with when each was first found missing.
    private var missingSince: [String: MonotonicInstant] = [:]
    /// What the files looked like when last read (and the password database, in guardian mode).
    private var stamps: [String: FileStamp?] = [:]
    /// Guardian mode: the regular users seen in a login session (`noteUsers`). The default policy covers those the
    /// password database lists and these, each looked up by uid: a directory that does not enumerate its users (SSSD's
    /// default) leaves them out of the list, and a user it leaves out would be limited by nobody. Sessions, not
    /// processes: a user's rootless containers run under uids of no account, as many as they like.
    private var seenUsers: Set<ScreenTimeModel.UserID> = []
    /// Those of `seenUsers` nobody could name at the last reading (a directory out of reach), and when they were last
    /// looked up.
    private var unnamedUsers: (users: Set<ScreenTimeModel.UserID>, lookedUp: MonotonicInstant) = (
        [], .init(nanoseconds: 0)
    )
    /// The regular users the password database lists, and the account of one uid (tests stand in a directory that
    /// does not enumerate its users).
    var listAccounts: () -> [GuardianPolicies.Account] = GuardianPolicies.regularAccounts
    var lookUpAccount: (ScreenTimeModel.UserID) -> GuardianPolicies.Account? = GuardianPolicies.account(of:)

    /// What a reading gave.
    struct Reading {
        /// The scopes of the plan; nil when no file changed what is in force.
        var scopes: [PolicyPlan.Scope]?
        /// Every file's mistakes (the policy in force keeps that file's last good policy).
        var error: PolicyError?
        /// The apps the guardian's policies limit (their programs are also known by content).
        var limitedApps: Set<AppID>
        /// The saved last good copies put in force for refused files, and what could not be saved.
        var restoredCopies: [String] = []
        var saveErrors: [String] = []
        /// Files found missing by this reading, in force for `removalGrace` more; files removed for that long, whose
        /// policy this reading lifted.
        var missing: [String] = []
        var removed: [String] = []
    }

    /// How long a file read before may be missing while its policy stays in force: an editor that saves by removing
    /// the file (or renaming it aside) and writing it anew leaves a gap of milliseconds, and no shield may let go
    /// in it; the guardian who removes a file lifts its limits this long after.
    static let removalGrace: Duration = .seconds(3)

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
        // A daemon started on the legacy file must see default.toml appear.
        let other = settings.policyPath == Policy.legacySystemPath ? Policy.systemDefaultPath : Policy.legacySystemPath
        return [settings.policyPath, other, folder + "/", "/etc/passwd"]
    }

    /// Guardian mode: several files, each covering its users.
    private var guardian: Bool { settings.userPoliciesFolder != nil }

    /// Whether anything read changed since the last reading.
    func changed() -> Bool { stamps(of: files) != stamps }

    /// How often a user seen in a session whom nobody could name is looked up again.
    static let lookupRetry: Duration = .seconds(60)

    /// Guardian mode: notes the users of the login sessions at `now`. Returns whether the policies must be read again
    /// for them: a regular user not seen before (one the password database does not list falls under the default
    /// policy from now on), or one nobody could name before whom a lookup, once a minute, names now.
    mutating func noteUsers(_ users: some Sequence<ScreenTimeModel.UserID>, at now: MonotonicInstant) -> Bool {
        guard guardian else { return false }
        var new = false
        for user in users where Policy.isRegularUser(user.rawValue) && !seenUsers.contains(user) {
            seenUsers.insert(user)
            new = true
        }
        if new { return true }
        guard !unnamedUsers.users.isEmpty, now - unnamedUsers.lookedUp >= Self.lookupRetry else { return false }
        unnamedUsers.lookedUp = now
        return unnamedUsers.users.contains { lookUpAccount($0) != nil }
    }

    /// The regular users: those the password database lists, and those seen in a session whom it does not list but a
    /// lookup by uid names.
    private mutating func regularAccounts(at now: MonotonicInstant) -> [GuardianPolicies.Account] {
        var accounts = listAccounts()
        var unnamed: Set<ScreenTimeModel.UserID> = []
        for user in seenUsers.subtracting(accounts.map(\.uid)).sorted() {
            if let account = lookUpAccount(user) { accounts.append(account) } else { unnamed.insert(user) }
        }
        unnamedUsers = (unnamed, now)
        return accounts
    }

    /// Whether a missing file's grace is over at `now`: the next reading lifts its policy.
    func removalDue(at now: MonotonicInstant) -> Bool {
        missingSince.values.contains { now - $0 >= Self.removalGrace }
    }

    private func stamps(of files: [GuardianPolicies.File]) -> [String: FileStamp?] {
        var current: [String: FileStamp?] = [:]
        for file in files { current[file.path] = FileStamp(path: file.path) }
        if guardian { current["/etc/passwd"] = FileStamp(path: "/etc/passwd") }
        return current
    }

    /// Reads every file at `now`.
    mutating func read(at now: MonotonicInstant) -> Reading {
        let files = files
        stamps = stamps(of: files)
        var problems: [PolicyError.Problem] = []
        var changed = false
        var reading = Reading(limitedApps: [])
        for file in files {
            // A file in force that is gone now: see below.
            if lastGood[file.path] != nil, Policy.nothing(at: file.path) { continue }
            let role = guardian ? file.role : .individual
            let diagnosis = Policy.diagnose(fileAt: file.path, role: role)
            switch diagnosis.result {
            case .success(let policy):
                if lastGood[file.path]?.policy != policy { changed = true }
                lastGood[file.path] = (file, policy)
                // Also when the policy is the same: a copy that could not be written last time is written now.
                if let text = diagnosis.text, let error = saveCopy(text, of: file) { reading.saveErrors.append(error) }
            case .failure(let error):
                problems += error.problems
                // A file missing at start limits nobody (its copy goes too, below). A link that leads nowhere is
                // there, and refused.
                if Policy.nothing(at: file.path) { continue }
                // At start nothing of the file is in force yet: its last good text, saved by an earlier run, is.
                if lastGood[file.path] == nil, let saved = savedCopy(of: file, role: role) {
                    lastGood[file.path] = (file, saved)
                    reading.restoredCopies.append(copyPath(of: file))
                    changed = true
                }
            }
        }
        let paths = Set(files.map(\.path))
        for (path, kept) in lastGood {
            if !Policy.nothing(at: path) {
                missingSince[path] = nil
                // A default policy no longer read (the legacy file once default.toml is written) limits nobody.
                if !paths.contains(path) {
                    lastGood[path] = nil
                    changed = true
                }
                continue
            }
            // Removed from a folder others can write: not the guardian's word. Kept in force, and said.
            if guardian, let problem = Policy.guardianFolderProblem(of: path) {
                problems.append(
                    .init(
                        file: path, line: 1, column: 1,
                        message: "the file is gone, but \(problem); its last good policy stays in force"))
                continue
            }
            // Gone: in force for the grace, then lifted.
            let since = missingSince[path] ?? now
            if missingSince[path] == nil { reading.missing.append(path) }
            missingSince[path] = since
            if now - since >= Self.removalGrace {
                lastGood[path] = nil
                missingSince[path] = nil
                reading.removed.append(path)
                changed = true
                // A file still expected (the default policy) says why nothing of it is in force.
                if paths.contains(path),
                    case .failure(let error) = Policy.diagnose(
                        fileAt: path, role: guardian ? kept.file.role : .individual
                    ).result
                {
                    problems += error.problems
                }
            }
        }
        missingSince = missingSince.filter { lastGood[$0.key] != nil }
        // The copies of the files in force and of those there (a refused one's, for a restart); the others go, so
        // that a file removed limits nobody after a restart either. Two paths may share a copy (the legacy default).
        forgetCopies(
            keeping: Set(
                files.filter { !Policy.nothing(at: $0.path) }.map(copyPath(of:))
                    + lastGood.values.map { copyPath(of: $0.file) })
        )
        // The default policy first, then the users' own, as the folder lists them.
        let usable = lastGood.values.sorted { ($0.file.user ?? "", $0.file.path) < ($1.file.user ?? "", $1.file.path) }
        var scopes: [PolicyPlan.Scope]
        var limited: Set<AppID> = []
        if !guardian {
            scopes = usable.map { PolicyPlan.Scope(policy: $0.policy) }
        } else {
            let coverage = GuardianPolicies.coverage(
                of: usable, accounts: regularAccounts(at: now), lookUp: GuardianPolicies.account(named:))
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
        reading.scopes = changed || problems.isEmpty ? scopes : nil
        reading.error = PolicyError(problems: problems)
        reading.limitedApps = limited
        return reading
    }

    // MARK: - Last good copies

    /// Where the last good text of `file` is kept: `policy.toml` in individual mode, `default.toml` and
    /// `user.NAME.toml` in guardian mode.
    func copyPath(of file: GuardianPolicies.File) -> String {
        let name = guardian ? file.user.map { "user.\($0).toml" } ?? "default.toml" : "policy.toml"
        return settings.lastGoodPoliciesFolder + "/" + name
    }

    /// Keeps `text`, just accepted, as the last good text of `file`; returns why it could not.
    private func saveCopy(_ text: String, of file: GuardianPolicies.File) -> String? {
        let path = copyPath(of: file)
        if FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) == text {
            return nil
        }
        do {
            try FileManager.default.createDirectory(
                atPath: settings.lastGoodPoliciesFolder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try AtomicFile.write(Array(text.utf8), to: FilePath(path))
            return nil
        } catch {
            return "\(path): \(error)"
        }
    }

    /// The last good policy of `file` an earlier run saved, if it still reads as `role`.
    private func savedCopy(of file: GuardianPolicies.File, role: Policy.Role) -> Policy? {
        let path = copyPath(of: file)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? Policy.diagnose(String(decoding: data, as: UTF8.self), file: path, role: role).get()
    }

    /// Removes the copies of files that are gone: a file the guardian removed limits nobody, also after a restart.
    private func forgetCopies(keeping kept: Set<String>) {
        let folder = settings.lastGoodPoliciesFolder
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            if !kept.contains(path) { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}
