import Foundation
import Glibc

extension Policy {
    /// Why a guardian policy file can't be trusted, or nil when it can: the file (after symbolic links), every folder
    /// above it, and every folder the path is looked up in on the way (the folder of each symbolic link, also of a
    /// link to a folder, and a folder left again by `..`) must belong to root and be writable by root alone, or a
    /// limited user could write the limits they live under (or swap a link). The daemon refuses such a file and
    /// keeps the policy in force.
    public static func guardianFileProblem(at path: String) -> String? {
        trustProblem(at: path, isFile: true)
    }

    /// `guardianFileProblem` of a file or a folder (named as such).
    private static func trustProblem(at path: String, isFile: Bool) -> String? {
        guard let resolved = realpath(path, nil) else {
            return FileManager.default.fileExists(atPath: path) ? "cannot resolve \(path)" : nil
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        let file = isFile ? real : ""
        if let problem = ownershipProblem(from: real, file: file) { return problem }
        // The path looked up component by component, as the kernel does; `folder` is always a real folder.
        let current = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var pending = current.split(separator: "/").map(String.init)
        var folder = "/"
        var links = 0
        while !pending.isEmpty {
            let component = pending.removeFirst()
            if component == "." { continue }
            if let problem = ownershipProblem(of: folder, file: file) { return problem }
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
            pending = target.split(separator: "/").map(String.init) + pending
            if target.hasPrefix("/") { folder = "/" }
        }
        return nil
    }

    /// Whether nothing is at `path`: not even a link (one that leads nowhere is there, and refused). A policy file is
    /// removed only when this holds, and only then is a requests file absent rather than kept aside.
    public static func nothing(at path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) != 0 && errno == ENOENT
    }

    /// Why the folder of a guardian policy file that is gone can't be trusted (so that its removal is not the
    /// guardian's word), or nil when root alone can write it and every folder above it.
    public static func guardianFolderProblem(of path: String) -> String? {
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder) else { return "cannot resolve \(folder)" }
        return trustProblem(at: folder, isFile: false)
    }

    /// The first of `start` and the folders above it that isn't root's alone; `file` is named as "the file".
    private static func ownershipProblem(from start: String, file: String) -> String? {
        var current = start
        while true {
            if let problem = ownershipProblem(of: current, file: file) { return problem }
            if current == "/" { return nil }
            current = (current as NSString).deletingLastPathComponent
            if current.isEmpty { current = "/" }
        }
    }

    /// Why `path` itself (a folder, or `file`, named "the file") isn't root's alone, or nil.
    private static func ownershipProblem(of path: String, file: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return "cannot read the owner of \(path)" }
        let what = path == file ? "the file" : "the folder \(path)"
        let fix =
            path == file
            ? "chown root:root \(file) && chmod 644 \(file)" : "chown root:root \(path) && chmod 755 \(path)"
        if status.st_uid != 0 {
            return "\(what) belongs to uid \(status.st_uid), not root, so that user can change the limits; fix: \(fix)"
        }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return
                "\(what) is writable by its group or by everyone (mode \(String(status.st_mode & 0o7777, radix: 8))); fix: \(fix)"
        }
        return nil
    }

    /// Whether a guardian's default policy may cover the user `uid`: a regular user, uid 1000 and above, but not
    /// systemd's dynamic service users (61184–65519), `nobody` (65534) and the invalid uids (65535, 2³²−1). Accounts
    /// from a directory (LDAP, SSSD) often have uids far above 65535.
    public static func isRegularUser(_ uid: UInt32) -> Bool {
        uid >= 1000 && !(61184...65535).contains(uid) && uid != UInt32.max
    }
}
