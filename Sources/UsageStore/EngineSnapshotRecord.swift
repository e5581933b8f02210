import Foundation
import GRDB

/// A row of `engineSnapshot`: the engine's state, saved so that a restart or a crash resumes the same interval
/// counters. The store keeps it opaque: `blob` is whatever the engine encoded, `version` its format's version.
public struct EngineSnapshotRecord: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    /// The table's name.
    public static let databaseTableName = "engineSnapshot"
    /// Which daemon the snapshot belongs to (`system`, or `user-1000` for an individual daemon); one row each.
    public var scope: String
    /// The encoding's version, 1 or more; the engine refuses a version it does not know.
    public var version: Int
    /// The encoded state.
    public var blob: Data
    /// Wall time of saving, milliseconds since 1970.
    public var savedAtMilliseconds: Int64

    /// Creates a snapshot.
    public init(scope: String, version: Int, blob: Data, savedAt: Date) {
        self.scope = scope
        self.version = version
        self.blob = blob
        self.savedAtMilliseconds = savedAt.millisecondsSince1970
    }

    /// When it was saved.
    public var savedAt: Date { Date(millisecondsSince1970: savedAtMilliseconds) }
}

extension UsageDatabase {
    /// The engine snapshot saved last for `scope` (`system`, or `user-UID`), if any.
    public func snapshot(scope: String) throws -> EngineSnapshotRecord? {
        try writer.read { db in try EngineSnapshotRecord.fetchOne(db, key: scope) }
    }
}
