/// Everything an engine knows, to persist and restore with `ActivityEngine(restoring:)`: activities and where
/// their schedules stand, each user's counters, warnings given and usage ledger, the settings stores and the
/// shields announced.
///
/// Encoded as JSON it is versioned by `formatVersion`; a snapshot of another version fails to decode rather than
/// restoring wrong counters.
public struct EngineSnapshot: Sendable, Codable {
    /// The version of the encoded form this build writes and reads.
    public static let currentFormatVersion = 1

    var core: EngineCore

    init(core: EngineCore) { self.core = core }

    private enum CodingKeys: String, CodingKey { case formatVersion, engine }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .formatVersion)
        guard version == Self.currentFormatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .formatVersion, in: container,
                debugDescription: "snapshot format \(version), this engine reads \(Self.currentFormatVersion)")
        }
        core = try container.decode(EngineCore.self, forKey: .engine)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentFormatVersion, forKey: .formatVersion)
        try container.encode(core, forKey: .engine)
    }
}
