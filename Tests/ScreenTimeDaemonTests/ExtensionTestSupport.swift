import Foundation
import Logging
import Synchronization
import Testing

/// A swift-log handler that keeps every record, to assert what was logged.
struct RecordingLogHandler: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    final class Store: Sendable {
        let records = Mutex<[Record]>([])
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        store.records.withLock { $0.append(Record(level: event.level, message: "\(event.message)", metadata: merged)) }
    }
}

/// Writes an executable shell script into `directory`.
func writeScript(_ directory: ScratchDirectory, _ name: String, _ body: String) throws -> String {
    let path = directory.path + "/" + name
    try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    // A root daemon runs extensions as nobody, who must reach the script.
    chmod(directory.path, 0o755)
    return path
}

/// A descriptor left open without close-on-exec (as a library might leave one), numbered from 100 up, above what a
/// shell opens itself (the folder it lists comes as 3): a child that inherits it shows it in `/proc/self/fd`.
func openLeakedDescriptor() throws -> Int32 {
    let opened = open("/dev/null", O_RDONLY)
    let leaked = fcntl(opened, F_DUPFD, 100)
    close(opened)
    try #require(leaked >= 100)
    return leaked
}
