import Foundation
import Logging
import ScreenTimeModel
import SystemPackage

/// A swift-log handler that writes one line per record to a file descriptor (standard error by default):
/// `level label: message key=value key2="two words"`.
///
/// Newlines in the message or values are written as `\n` so that a record stays on one line; values with spaces,
/// quotes, `=` or nothing in them are quoted. Each line is one `write(2)`, so that lines of concurrent loggers don't
/// interleave.
public struct StderrLogHandler: LogHandler {
    /// The logger's label (`screentimed.engine`).
    public let label: String
    /// Where lines go.
    public let fileDescriptor: FileDescriptor
    /// The handler's own metadata, below the record's.
    public var metadata: Logger.Metadata = [:]
    /// Records below this level are not written.
    public var logLevel: Logger.Level = .info
    /// Contributes metadata to every record, below the handler's metadata.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler writing lines for the logger `label` to `fileDescriptor`.
    public init(
        label: String, fileDescriptor: FileDescriptor = .standardError,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.fileDescriptor = fileDescriptor
        self.metadataProvider = metadataProvider
    }

    /// The handler's metadata for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line.
    public func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        StandardErrorLine.write(
            Self.line(level: event.level, label: label, message: "\(event.message)", metadata: merged),
            to: fileDescriptor)
    }

    /// The line for one record, newline included: `level label: message key=value`, metadata sorted by key.
    public static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var line = "\(level) \(label): \(escaped(message))"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(escaped(key))=\(quotedIfNeeded(escaped("\(value)")))"
        }
        return line + "\n"
    }

    /// Every control character made visible: names in messages come from processes, and a terminal reading the log
    /// must not act on them.
    private static func escaped(_ text: String) -> String {
        text.escapingControlCharacters()
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\t" }) else {
            return value
        }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }
}
