import Foundation
import Glibc

extension Policy {
    /// Why a guardian policy file can't be trusted, or nil when it can: the file (after symbolic links), every folder
    /// above it, and the folder of every symbolic link on the way to it (each one, also a link to a folder, and the
    /// folders above) must belong to root and be writable by root alone, or a limited user could write the limits
    /// they live under (or swap a link). The daemon refuses such a file and keeps the policy in force.
    public static func guardianFileProblem(at path: String) -> String? {
        guard let resolved = realpath(path, nil) else {
            return FileManager.default.fileExists(atPath: path) ? "cannot resolve \(path)" : nil
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        if let problem = ownershipProblem(from: real, file: real) { return problem }
        // Each link met resolving the path, component by component, as the kernel does.
        let current = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var pending = current.split(separator: "/").map(String.init)
        var folder = "/"
        var links = 0
        while !pending.isEmpty {
            let component = pending.removeFirst()
            if component == "." { continue }
            if component == ".." {
                folder = (folder as NSString).deletingLastPathComponent
                continue
            }
            let candidate = folder == "/" ? "/" + component : folder + "/" + component
            var status = stat()
            guard lstat(candidate, &status) == 0 else { return "cannot read \(candidate)" }
            guard status.st_mode & S_IFMT == S_IFLNK else {
                folder = candidate
                continue
            }
            links += 1
            guard links <= 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: candidate) else {
                return "cannot follow the symbolic link \(candidate)"
            }
            if let problem = ownershipProblem(from: folder, file: real) { return problem }
            pending = target.split(separator: "/").map(String.init) + pending
            if target.hasPrefix("/") { folder = "/" }
        }
        return nil
    }

    /// The first of `start` and the folders above it that isn't root's alone; `file` is named as "the file".
    private static func ownershipProblem(from start: String, file: String) -> String? {
        var current = start
        while true {
            var status = stat()
            guard stat(current, &status) == 0 else { return "cannot read the owner of \(current)" }
            let what = current == file ? "the file" : "the folder \(current)"
            let fix =
                current == file
                ? "chown root:root \(file) && chmod 644 \(file)" : "chown root:root \(current) && chmod 755 \(current)"
            if status.st_uid != 0 {
                return
                    "\(what) belongs to uid \(status.st_uid), not root, so that user can change the limits; fix: \(fix)"
            }
            if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                return
                    "\(what) is writable by its group or by everyone (mode \(String(status.st_mode & 0o7777, radix: 8))); fix: \(fix)"
            }
            if current == "/" { return nil }
            current = (current as NSString).deletingLastPathComponent
            if current.isEmpty { current = "/" }
        }
    }

    /// Whether a guardian's default policy may cover the user `uid`: a regular user, uid 1000 and above, but not
    /// systemd's dynamic service users (61184–65519), `nobody` (65534) and the invalid uids (65535, 2³²−1). Accounts
    /// from a directory (LDAP, SSSD) often have uids far above 65535.
    public static func isRegularUser(_ uid: UInt32) -> Bool {
        uid >= 1000 && !(61184...65535).contains(uid) && uid != UInt32.max
    }
}
