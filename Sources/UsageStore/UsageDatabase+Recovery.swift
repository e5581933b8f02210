import Foundation
import GRDB

extension UsageDatabase {
    /// What opening the daemon's ledger found.
    public struct Opened: Sendable {
        /// The ledger, ready to write.
        public var database: UsageDatabase
        /// Where a damaged or unreadable file was moved before a fresh one was started, if it was.
        public var movedAside: String?
    }

    /// Why a ledger file was moved aside.
    enum Damage: Error, CustomStringConvertible {
        case empty, notSQLite, truncated(expected: Int64, actual: Int64), unreadable(Int32), corrupt(String)

        var description: String {
            switch self {
            case .empty: "the file is empty"
            case .notSQLite: "the file is not an SQLite database"
            case .truncated(let expected, let actual): "the file is truncated (\(actual) of \(expected) bytes)"
            case .unreadable(let code): "the file cannot be read (\(String(cString: strerror(code))))"
            case .corrupt(let detail): "the database is corrupt (\(detail))"
            }
        }
    }

    /// Opens the ledger at `path` for the daemon, never giving up on a damaged file: a file that is empty, truncated,
    /// not SQLite, fails SQLite's `quick_check` or can't be read is moved aside (renamed `NAME.broken-TIME`, with its
    /// `-wal` and `-shm` files; nothing is deleted) and a fresh ledger is started in its place.
    ///
    /// - Parameter damaged: called with the path the file was moved to and why, before the fresh one is opened.
    /// - Throws: when neither the file nor a fresh one can be opened or written (a read-only or full disk, a lock
    ///   held elsewhere): the caller keeps its rows in memory and tries again later.
    public static func openRecovering(
        at path: String, now: Date = Date(), damaged: (String, String) -> Void = { _, _ in }
    ) throws -> Opened {
        let damage: Damage
        let existed = FileManager.default.fileExists(atPath: path)
        do {
            try checkFile(at: path)
            let database: UsageDatabase
            do {
                database = try open(at: path)
            } catch let error as DatabaseError where ![.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
                // A new ledger that could not be written (a full disk) leaves an empty file: ours, not damage to
                // move aside at the next try.
                if !existed, (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 {
                    try? FileManager.default.removeItem(atPath: path)
                }
                throw error
            }
            let check = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check(1)") }
            guard check == "ok" else { throw Damage.corrupt(check ?? "no answer") }
            return Opened(database: database, movedAside: nil)
        } catch let error as Damage {
            damage = error
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            damage = .corrupt(error.message ?? "\(error.resultCode)")
        }
        let stamped = path + ".broken-" + Self.stamp(now)
        var aside = stamped
        // Two in the same second get names of their own.
        var count = 1
        while FileManager.default.fileExists(atPath: aside) {
            count += 1
            aside = stamped + "-\(count)"
        }
        try FileManager.default.moveItem(atPath: path, toPath: aside)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        damaged(aside, damage.description)
        return Opened(database: try open(at: path), movedAside: aside)
    }

    /// A ledger file a reader beside the daemon refuses: empty, not SQLite or truncated.
    public struct UnusableFile: Error, CustomStringConvertible {
        public var path: String
        /// What is wrong with it ("the file is empty").
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Opens an existing ledger for a reader beside the daemon (the command line's reports), migrated as the daemon
    /// would, but never made anew: SQLite takes an empty file for a new database, and the reader would have made a
    /// ledger of a file the daemon moves aside as damaged at its next start.
    ///
    /// - Throws: `UnusableFile` for a file that is empty, not SQLite or truncated; GRDB's errors otherwise.
    public static func openExisting(at path: String) throws -> UsageDatabase {
        do {
            try checkFile(at: path)
        } catch let damage as Damage {
            throw UnusableFile(path: path, reason: damage.description)
        }
        return try open(at: path)
    }

    /// The files `openRecovering(at:)` moved aside for the ledger at `path`, oldest first.
    public static func movedAsideFiles(of path: String) -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".broken-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
            .map { directory + "/" + $0 }
    }

    /// Refuses, before SQLite sees it, a file that exists but is empty, unreadable, not SQLite, or shorter than its
    /// header says (SQLite would otherwise take an empty file for a new database, and read a truncated one until it
    /// reached the missing pages). A file with a write-ahead log is checked by SQLite alone: a checkpoint cut short
    /// (a crash, a power cut) leaves the file shorter than the page count it wrote first, and the log still holds
    /// every page.
    ///
    /// - Throws: `Damage`, or a `POSIXError` for a failure of the moment (out of descriptors or memory, interrupted)
    ///   that the caller retries rather than move a good file aside.
    private static func checkFile(at path: String) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return }
            if [EACCES, EPERM, EIO, EISDIR, ELOOP, ENXIO, ENODEV].contains(code) { throw Damage.unreadable(code) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 100)
        let count = read(descriptor, &header, 100)
        guard count != 0 else { throw Damage.empty }
        guard count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else { throw Damage.notSQLite }
        func bigEndian(_ offset: Int, _ width: Int) -> Int64 {
            header[offset..<offset + width].reduce(0) { $0 << 8 | Int64($1) }
        }
        let pageSize = bigEndian(16, 2) == 1 ? 65536 : bigEndian(16, 2)
        // The page count at offset 28 is valid when the change counter (24) matches "version valid for" (92).
        guard bigEndian(24, 4) == bigEndian(92, 4) else { return }
        let expected = pageSize * bigEndian(28, 4)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Damage.unreadable(errno) }
        var log = stat()
        if stat(path + "-wal", &log) == 0, log.st_size > 0 { return }
        if Int64(status.st_size) < expected {
            throw Damage.truncated(expected: expected, actual: Int64(status.st_size))
        }
    }

    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return formatter.string(from: date)
    }
}

extension UsageDatabase {
    /// The engine snapshot of `scope` in the ledger at `path`, read without writing or migrating and without waiting
    /// more than 100 ms for a lock; nil when there is none or the file can't be read.
    public static func snapshot(inFileAt path: String, scope: String) -> EngineSnapshotRecord? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(0.1)
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        return try? queue.read { db in try EngineSnapshotRecord.fetchOne(db, key: scope) }
    }
}
