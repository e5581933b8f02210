import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel

/// A guardian's policies and whom each covers: `/etc/screentime/users/NAME.toml` limits the user NAME, and
/// `/etc/screentime/default.toml` every other regular user (uid 1000 and above) but those its `exempt` lists.
public enum GuardianPolicies {
    /// The folder of the users' own policies.
    public static let usersFolder = "/etc/screentime/users"

    /// A user account, as the password database names it.
    public struct Account: Hashable, Sendable {
        public var name: String
        public var uid: UserID

        public init(name: String, uid: UserID) {
            self.name = name
            self.uid = uid
        }
    }

    /// A policy file of the guardian's: the default one (`user` nil) or a user's own.
    public struct File: Hashable, Sendable {
        public var path: String
        /// The user it limits, from its name (`alice.toml`); nil for the default policy.
        public var user: String?

        /// How it is read: `exempt` belongs to the default policy alone.
        public var role: Policy.Role { user == nil ? .guardianDefault : .guardianUser }
    }

    /// The files to read: the default policy, then each user's, by name. Without a default policy only the users
    /// with a file of their own are limited: it is left out when it does not exist and some user has a file (with no
    /// file at all, the missing default is read, and says so).
    public static func files(defaultPath: String, usersFolder: String) -> [File] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: usersFolder)) ?? []
        let users = names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted().map { name in
            File(path: usersFolder + "/" + name, user: String(name.dropLast(5)))
        }
        // Only an empty path leaves the default out: a link there that leads nowhere is read, and refused.
        if !users.isEmpty, Policy.nothing(at: defaultPath) { return users }
        return [File(path: defaultPath, user: nil)] + users
    }

    /// The regular users of this system (uid 1000 and above but `nobody`), by name.
    public static func regularAccounts() -> [Account] {
        var accounts: [Account] = []
        setpwent()
        defer { endpwent() }
        while let entry = getpwent() {
            let uid = entry.pointee.pw_uid
            if Policy.isRegularUser(uid), let name = entry.pointee.pw_name {
                accounts.append(Account(name: String(cString: name), uid: UserID(uid)))
            }
        }
        return accounts.sorted { $0.name < $1.name }
    }

    /// The account of `uid`, of any uid: a directory that does not enumerate its users (SSSD's default, many LDAP
    /// setups) leaves them out of `regularAccounts()`, but names each one asked for.
    public static func account(of uid: UserID) -> Account? {
        Logind.account(of: uid).map { Account(name: $0.name, uid: uid) }
    }

    /// The account named `name`, of any uid.
    public static func account(named name: String) -> Account? {
        guard let entry = getpwnam(name) else { return nil }
        return Account(name: name, uid: UserID(entry.pointee.pw_uid))
    }

    /// Whom each policy covers. A user's own file covers that user (when the system has one); the default policy
    /// covers the regular users without a policy of their own, except those it exempts. Pure: the caller reads the
    /// files and the accounts.
    ///
    /// - Parameters:
    ///   - policies: the usable policy of each file (the file's, or the last good one when it was refused).
    ///   - accounts: the regular users; `lookUp` finds any other user a file names.
    /// - Returns: the scopes of the plan (the default's first) with the names of the users each covers, and a
    ///   problem for each user file that names no user.
    public static func coverage(
        of policies: [(file: File, policy: Policy)], accounts: [Account], lookUp: (String) -> Account?
    ) -> (covered: [(file: File, policy: Policy, users: [Account])], problems: [PolicyError.Problem]) {
        var covered: [(file: File, policy: Policy, users: [Account])] = []
        var problems: [PolicyError.Problem] = []
        var ownPolicy: Set<String> = []
        for (file, policy) in policies {
            guard let name = file.user else { continue }
            guard let account = accounts.first(where: { $0.name == name }) ?? lookUp(name) else {
                problems.append(
                    PolicyError.Problem(
                        file: file.path, line: 1, column: 1,
                        message: "no user named \"\(name)\" on this system: the file limits nobody; name it after a "
                            + "user (`getent passwd` lists them)"))
                continue
            }
            ownPolicy.insert(name)
            covered.append((file, policy, [account]))
        }
        if let (file, policy) = policies.first(where: { $0.file.user == nil }) {
            let exempt = Set(policy.exempt)
            let users = accounts.filter { !exempt.contains($0.name) && !ownPolicy.contains($0.name) }
            covered.insert((file, policy, users), at: 0)
        }
        return (covered, problems)
    }

    /// Warnings for a default policy's `exempt` names that are no user of this system.
    public static func unknownExemptions(in policy: Policy, file: String, lookUp: (String) -> Account?) -> [PolicyError
        .Problem]
    {
        policy.exempt.filter { lookUp($0) == nil }.map { name in
            PolicyError.Problem(
                file: file, line: 1, column: 1,
                message: "warning: `exempt` names \"\(name)\", who is no user of this system; check the spelling")
        }
    }
}
