import Logging

extension LogHandler {
    /// The provider's, the handler's and the record's metadata, later ones winning: what the daemon's handlers
    /// write with each record.
    func mergedMetadata(_ recordMetadata: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadataProvider?.get() ?? [:]
        merged.merge(metadata) { _, new in new }
        if let recordMetadata { merged.merge(recordMetadata) { _, new in new } }
        return merged
    }
}
