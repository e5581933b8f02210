import Logging
import ScreenTimeModel

/// A swift-log handler that writes each record to the systemd journal as a structured entry.
///
/// Fields: `MESSAGE`, `PRIORITY` (see `Logger.Level.syslogPriority`), `SYSLOG_IDENTIFIER`, `CODE_FILE`,
/// `CODE_LINE`, `CODE_FUNC`, `LOGGER_LABEL`, and one field per metadata key, named by
/// `JournalField.sanitizedName(_:)` (`"app"` → `APP`). A metadata key that would take the name of one of the fields
/// above gets the prefix `META_` instead of replacing it. When journald refuses the record, it goes to standard
/// error in `StderrLogHandler`'s format, so that nothing is lost silently.
public struct JournalLogHandler: LogHandler {
    /// The fields every record carries; metadata may not overwrite them.
    static let reservedNames: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER_LABEL",
    ]

    /// The logger's label (`screentimed.engine`), sent as `LOGGER_LABEL`.
    public let label: String
    /// The program's name in the journal (`SYSLOG_IDENTIFIER=`, what `journalctl -t` selects).
    public let identifier: String
    /// The handler's own metadata, below the record's.
    public var metadata: Logger.Metadata = [:]
    /// Records below this level are not written.
    public var logLevel: Logger.Level = .info
    /// Contributes metadata to every record, below the handler's metadata.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler for the logger `label` of the program `identifier`.
    public init(label: String, identifier: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.identifier = identifier
        self.metadataProvider = metadataProvider
    }

    /// The handler's metadata for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` to the journal, or to standard error when journald refuses it.
    public func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        do {
            try Journal.send(fields(for: event, metadata: merged))
        } catch {
            StandardErrorLine.write(
                StderrLogHandler.line(level: event.level, label: label, message: "\(event.message)", metadata: merged))
        }
    }

    /// The journal fields for `event` with `metadata` already merged, in a stable order: the fixed fields, then the
    /// metadata sorted by key. Pure: this is what `log(event:)` hands to `sd_journal_sendv(3)`.
    public func fields(for event: LogEvent, metadata: Logger.Metadata) -> [JournalField] {
        var fields = [
            // Control characters made visible: `journalctl` prints MESSAGE to terminals.
            JournalField("MESSAGE", "\(event.message)".escapingControlCharacters(keepingLineFeeds: true)),
            JournalField("PRIORITY", String(event.level.syslogPriority)),
            JournalField("SYSLOG_IDENTIFIER", identifier),
            JournalField("CODE_FILE", event.file),
            JournalField("CODE_LINE", String(event.line)),
            JournalField("CODE_FUNC", event.function),
            JournalField("LOGGER_LABEL", label),
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            var name = JournalField.sanitizedName(key)
            if Self.reservedNames.contains(name) { name = "META_" + name }
            fields.append(JournalField(name, "\(value)".escapingControlCharacters()))
        }
        return fields
    }
}
