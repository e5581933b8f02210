import Foundation
import Glibc
import Logging
import SystemPackage

/// Chooses where the daemon's logs go and installs the matching swift-log handler.
public enum LoggingSetup {
    /// Where log records are written.
    public enum Destination: Hashable, Sendable {
        /// The systemd journal, as structured entries (`JournalLogHandler`).
        case journal
        /// Standard error, one line per record (`StderrLogHandler`).
        case standardError
    }

    /// The journal when standard error is connected to it, standard error otherwise.
    ///
    /// systemd sets `$JOURNAL_STREAM` to `DEVICE:INODE` (decimal) of the stream it connects a service's standard
    /// output and error to; standard error is the journal's only when that pair matches its `fstat(2)`. A child that
    /// inherited the variable but not the descriptor (`screentimed 2>file`) thus logs to its own standard error.
    public static func destination(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        standardError: FileDescriptor = .standardError
    ) -> Destination {
        guard let stream = environment["JOURNAL_STREAM"], let identity = FileIdentity(of: standardError),
            stream == "\(identity.device):\(identity.inode)"
        else { return .standardError }
        return .journal
    }

    /// A handler for the logger `label` writing to `destination`, with `identifier` as the journal's
    /// `SYSLOG_IDENTIFIER` and `level` as the lowest level written.
    public static func handler(
        label: String, identifier: String, destination: Destination, level: Logger.Level = .info
    ) -> any LogHandler {
        var handler: any LogHandler =
            switch destination {
            case .journal: JournalLogHandler(label: label, identifier: identifier)
            case .standardError: StderrLogHandler(label: label)
            }
        handler.logLevel = level
        return handler
    }

    /// Installs the handler for this process's `destination()`; call once, first thing in `main`.
    /// `$SCREENTIME_LOG_LEVEL` (`trace` … `critical`) overrides `level`.
    public static func bootstrap(identifier: String, level: Logger.Level = .info) {
        let environment = ProcessInfo.processInfo.environment
        let destination = destination(environment: environment)
        let chosen = environment["SCREENTIME_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? level
        LoggingSystem.bootstrap { label in
            handler(label: label, identifier: identifier, destination: destination, level: chosen)
        }
    }
}

/// The device and inode numbers of an open file, which identify it system-wide.
struct FileIdentity: Hashable {
    /// `st_dev`.
    var device: UInt64
    /// `st_ino`.
    var inode: UInt64

    /// The identity of what `fileDescriptor` refers to, or nil when it is not open.
    ///
    /// The C function is `fstat(2)`.
    init?(of fileDescriptor: FileDescriptor) {
        var status = stat()
        guard fstat(fileDescriptor.rawValue, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
