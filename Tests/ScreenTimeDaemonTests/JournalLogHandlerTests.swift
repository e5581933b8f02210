import CLinux
import Foundation
import Glibc
import Logging
import SystemPackage
import Testing

@testable import ScreenTimeDaemon

@Suite("Journal and standard-error logging")
struct JournalLogHandlerTests {
    private func event(
        _ level: Logger.Level, _ message: Logger.Message, metadata: Logger.Metadata? = nil
    ) -> LogEvent {
        LogEvent(
            level: level, message: message, metadata: metadata, source: "ScreenTimeDaemon",
            file: "ScreenTimeDaemon/Engine.swift", function: "tick(at:)", line: 42)
    }

    @Test("a record becomes MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_* fields and one field per metadata key")
    func fieldEncoding() {
        var handler = JournalLogHandler(label: "screentimed.engine", identifier: "screentimed")
        handler[metadataKey: "user"] = "1000"
        let record = event(.warning, "5 minutes left", metadata: ["activity": "daily", "user": "1001"])
        let fields = handler.fields(for: record, metadata: handler.mergedMetadata(record.metadata))
        #expect(
            fields.map(\.description) == [
                "MESSAGE=5 minutes left", "PRIORITY=4", "SYSLOG_IDENTIFIER=screentimed",
                "CODE_FILE=ScreenTimeDaemon/Engine.swift", "CODE_LINE=42", "CODE_FUNC=tick(at:)",
                "LOGGER_LABEL=screentimed.engine", "ACTIVITY=daily", "USER=1001",
            ])
    }

    @Test("a multi-line message is one field whose value keeps its newline")
    func multiLineMessage() {
        let handler = JournalLogHandler(label: "l", identifier: "i")
        let fields = handler.fields(for: event(.info, "first\nsecond"), metadata: [:])
        #expect(fields[0].encoded == Array("MESSAGE=first\nsecond".utf8))
    }

    @Test("metadata cannot overwrite the fixed fields")
    func reservedNames() {
        let handler = JournalLogHandler(label: "l", identifier: "i")
        let fields = handler.fields(for: event(.error, "real"), metadata: ["message": "forged", "priority": "0"])
        #expect(fields.filter { $0.name == "MESSAGE" }.map(\.description) == ["MESSAGE=real"])
        #expect(fields.filter { $0.name == "PRIORITY" }.map(\.description) == ["PRIORITY=3"])
        #expect(fields.contains(JournalField("META_MESSAGE", "forged")))
        #expect(fields.contains(JournalField("META_PRIORITY", "0")))
    }

    @Test(
        "field names follow journald's rules",
        arguments: [
            ("app", "APP"), ("request-id", "REQUEST_ID"), ("session.id", "SESSION_ID"), ("_PID", "PID"),
            ("__x", "X"), ("2fa", "META_2FA"), ("", "META_"), ("___", "META_"), ("été", "T_"),
            ("Mixed Case 9", "MIXED_CASE_9"),
            (String(repeating: "a", count: 80), String(repeating: "A", count: 64)),
        ])
    func sanitizing(key: String, expected: String) {
        let name = JournalField.sanitizedName(key)
        #expect(name == expected)
        #expect(name.utf8.count <= 64)
        #expect(name.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        #expect(!name.hasPrefix("_") && !(name.first?.isNumber ?? true))
    }

    @Test(
        "levels map to syslog priorities",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ])
    func levelMapping(level: Logger.Level, priority: Int) {
        #expect(level.syslogPriority == priority)
    }

    @Test("standard-error lines carry level, label, message and sorted key=value metadata")
    func stderrFormat() throws {
        // Close-on-exec from the start: a child another test spawns meanwhile must not hold the write end open.
        var ends: [Int32] = [-1, -1]
        try #require(clinux_pipe_cloexec(&ends) == 0)
        let (readEnd, writeEnd) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer {
            try? readEnd.close()
            try? writeEnd.close()
        }
        var logger = Logger(label: "screentimed.test") { StderrLogHandler(label: $0, fileDescriptor: writeEnd) }
        logger.logLevel = .debug
        logger[metadataKey: "user"] = "1000"
        logger.notice("shield on", metadata: ["app": "org.example.Game", "reason": "daily limit"])
        logger.debug("two\nlines", metadata: ["empty": ""])
        logger.trace("not written")
        try writeEnd.close()
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try readEnd.read(into: $0) }
            if count == 0 { break }
            output += buffer[..<count]
        }
        #expect(
            String(decoding: output, as: UTF8.self)
                == """
                notice screentimed.test: shield on app=org.example.Game reason="daily limit" user=1000
                debug screentimed.test: two\\nlines empty="" user=1000

                """)
    }

    @Test("the journal is chosen only when $JOURNAL_STREAM names standard error's device and inode")
    func bootstrapChoice() throws {
        let directory = try ScratchDirectory()
        let file = try FileDescriptor.open(
            FilePath(directory.path + "/stderr"), .writeOnly, options: [.create], permissions: .ownerReadWrite)
        defer { try? file.close() }
        var status = stat()
        #expect(fstat(file.rawValue, &status) == 0)
        let matching = "\(status.st_dev):\(status.st_ino)"
        #expect(LoggingSetup.destination(environment: ["JOURNAL_STREAM": matching], standardError: file) == .journal)
        #expect(
            LoggingSetup.destination(
                environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"],
                standardError: file) == .standardError)
        #expect(LoggingSetup.destination(environment: [:], standardError: file) == .standardError)
        #expect(
            LoggingSetup.destination(
                environment: ["JOURNAL_STREAM": matching], standardError: FileDescriptor(rawValue: -1))
                == .standardError)
        #expect(
            LoggingSetup.handler(label: "x", identifier: "screentimed", destination: .journal) is JournalLogHandler)
        #expect(LoggingSetup.handler(label: "x", identifier: "s", destination: .standardError) is StderrLogHandler)
    }

    @Test(
        "without a journald socket, sd_journal_sendv returns (libsystemd drops the entry) and the handler survives",
        .enabled(if: !FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")))
    func noJournal() throws {
        try Journal.send([JournalField("MESSAGE", "nobody listens"), JournalField("PRIORITY", "6")])
        JournalLogHandler(label: "l", identifier: "i").log(event: event(.info, "dropped without a journal"))
    }

    @Test("a field without a name is an error value with EINVAL, not a crash")
    func invalidEntry() {
        #expect {
            try Journal.send([JournalField("MESSAGE", "x"), JournalField("", "a value without a name")])
        } throws: { error in
            guard let error = error as? DaemonServiceError else { return false }
            return error.code == .journalFailed && error.errno == .invalidArgument
        }
    }
}
