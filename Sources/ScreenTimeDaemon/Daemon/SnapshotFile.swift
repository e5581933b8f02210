import Enforcement
import Foundation
import ScreenTimeEngine
import SystemPackage
import UsageStore

/// The engine's snapshot in a small file beside the ledger, replaced atomically at every flush that carries one, so
/// that a restart resumes the day's counters and shields without opening the ledger, and a lost ledger loses
/// neither.
public struct SnapshotFile: Sendable {
    /// Where the file lives.
    public var path: String

    /// Names the file; nothing is read or written yet.
    public init(path: String) {
        self.path = path
    }

    /// Replaces the file with an encoded snapshot.
    public func save(_ blob: Data) throws(Errno) {
        try AtomicFile.write(blob, to: FilePath(path))
    }

    /// The last snapshot: from the file, or, when the file is missing or unreadable (a first start after an
    /// upgrade), from the ledger at `databasePath`, read without waiting for locks. Nil when neither has one.
    public func load(orFromDatabaseAt databasePath: String, scope: String) -> (EngineSnapshot, source: String)? {
        let decoder = JSONDecoder()
        if let data = FileManager.default.contents(atPath: path),
            let snapshot = try? decoder.decode(EngineSnapshot.self, from: data)
        {
            return (snapshot, path)
        }
        guard let record = UsageDatabase.snapshot(inFileAt: databasePath, scope: scope),
            let snapshot = try? decoder.decode(EngineSnapshot.self, from: record.blob)
        else { return nil }
        return (snapshot, databasePath)
    }
}
