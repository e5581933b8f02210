import Foundation
import Glibc

/// The end of an extension's entry point: its answer as the last line of standard output and status 0, or the
/// problem on standard error and status 64 (`EX_USAGE`).
enum ExtensionEntry {
    static func answer(_ body: () throws -> String) -> Never {
        do {
            let line = try body()
            fflush(nil)  // what the extension printed itself comes first; the answer is the last line
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(64)
        }
    }
}
