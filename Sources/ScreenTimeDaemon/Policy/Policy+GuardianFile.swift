import Foundation
import Glibc

extension Policy {
    /// Why a guardian policy file can't be trusted, or nil when it can: the file (after symbolic links) and every
    /// folder above it must belong to root and be writable by root alone, or a limited user could write the limits
    /// they live under. The daemon refuses such a file and keeps the policy in force.
    public static func guardianFileProblem(at path: String) -> String? {
        guard let resolved = realpath(path, nil) else {
            return FileManager.default.fileExists(atPath: path) ? "cannot resolve \(path)" : nil
        }
        defer { free(resolved) }
        var current = String(cString: resolved)
        let real = current
        while true {
            var status = stat()
            guard stat(current, &status) == 0 else { return "cannot read the owner of \(current)" }
            let what = current == real ? "the file" : "the folder \(current)"
            let fix =
                current == real
                ? "chown root:root \(real) && chmod 644 \(real)" : "chown root:root \(current) && chmod 755 \(current)"
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
