import Glibc
import Logging
import SystemPackage

/// Splits an extension's output into lines, logs each one and keeps the last ones.
struct OutputCollector {
    let limits: ExtensionLimits
    let logger: Logger
    private(set) var lines: [ExtensionOutcome.OutputLine] = []
    private var partial: [ExtensionOutcome.OutputLine.Stream: [UInt8]] = [:]

    init(limits: ExtensionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// Reads what `descriptor` has; returns false at end of file (or on an error other than `EAGAIN`).
    ///
    /// The C function is `read(2)`.
    mutating func read(from descriptor: FileDescriptor, stream: ExtensionOutcome.OutputLine.Stream) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count > 0 {
                append(buffer[..<count], stream: stream)
            } else if count == 0 {
                flush(stream)
                return false
            } else if errno == EINTR {
                continue
            } else {
                return errno == EAGAIN
            }
        }
    }

    /// Emits the unterminated last lines.
    mutating func finish() {
        flush(.standardOutput)
        flush(.standardError)
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>, stream: ExtensionOutcome.OutputLine.Stream) {
        var pending = partial[stream, default: []]
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(pending, stream: stream)
                pending.removeAll(keepingCapacity: true)
            } else if pending.count < limits.maximumLineBytes {
                pending.append(byte)
            }
        }
        partial[stream] = pending
    }

    private mutating func flush(_ stream: ExtensionOutcome.OutputLine.Stream) {
        if let pending = partial[stream], !pending.isEmpty { emit(pending, stream: stream) }
        partial[stream] = []
    }

    private mutating func emit(_ bytes: [UInt8], stream: ExtensionOutcome.OutputLine.Stream) {
        let line = ExtensionOutcome.OutputLine(stream, String(decoding: bytes, as: UTF8.self))
        switch stream {
        case .standardOutput: logger.info("\(line.text)", metadata: ["stream": "stdout"])
        case .standardError: logger.warning("\(line.text)", metadata: ["stream": "stderr"])
        }
        lines.append(line)
        if lines.count > limits.keptOutputLines { lines.removeFirst(lines.count - limits.keptOutputLines) }
    }
}
