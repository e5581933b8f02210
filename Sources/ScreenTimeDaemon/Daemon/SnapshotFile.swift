import Enforcement
import Foundation
import ScreenTimeEngine
import SystemPackage
import UsageStore

/// The engine's snapshot in a small file beside the ledger, replaced atomically when the engine asks for a save, at a
/// stop, while the ledger can't be written, and otherwise once a minute (`StoreWriter`), so that a lost ledger loses
/// neither the day's counters nor its shields.
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

    /// The last snapshot: the newer of the file's (by its modification time) and the one in the ledger at
    /// `databasePath` (by when it was saved; read without waiting for locks). The ledger's is newer when the file
    /// could not be replaced (a full disk: a new file needs a block, the ledger's log reuses its own) or is missing
    /// (a first start after an upgrade). Nil when neither has one.
    public func load(orFromDatabaseAt databasePath: String, scope: String) -> (EngineSnapshot, source: String)? {
        let decoder = JSONDecoder()
        var fromFile: (snapshot: EngineSnapshot, modified: Date)?
        if let data = FileManager.default.contents(atPath: path),
            let snapshot = try? decoder.decode(EngineSnapshot.self, from: data),
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        {
            fromFile = (snapshot, modified)
        }
        if let record = UsageDatabase.snapshot(inFileAt: databasePath, scope: scope),
            fromFile.map({ record.savedAt > $0.modified }) ?? true,
            let snapshot = try? decoder.decode(EngineSnapshot.self, from: record.blob)
        {
            return (snapshot, databasePath)
        }
        return fromFile.map { ($0.snapshot, path) }
    }
}
