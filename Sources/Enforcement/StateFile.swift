import Foundation
import SystemPackage

/// The enforcer's state file: `HeldResources` as JSON, replaced atomically (write a temporary file beside it,
/// `fsync(2)`, `rename(2)`), and removed when nothing is held.
public struct StateFile: Sendable {
    /// Where the file lives, e.g. `$RUNTIME_DIRECTORY/enforcement.json`. `/run` survives a daemon crash but not a
    /// reboot, which is right: a reboot thaws everything anyway.
    public var path: FilePath

    /// Names the state file at `path`; nothing is read or written yet.
    public init(path: FilePath) {
        self.path = path
    }

    /// Reads what a previous run held; empty when there is no file.
    ///
    /// - Throws: `.stateFileFailed` when the file cannot be read, is not valid JSON or has another version.
    public func load() throws(EnforcementError) -> HeldResources {
        let text: String
        do {
            text = try TextFile.read(path)
        } catch .noSuchFileOrDirectory {
            return HeldResources()
        } catch {
            throw EnforcementError(.stateFileFailed, "reading \(path)", errno: error)
        }
        let held: HeldResources
        do {
            held = try JSONDecoder().decode(HeldResources.self, from: Data(text.utf8))
        } catch {
            throw EnforcementError(.stateFileFailed, "\(path) is not a valid state file: \(error)")
        }
        guard held.version == HeldResources.currentVersion else {
            throw EnforcementError(
                .stateFileFailed, "\(path) has format version \(held.version), expected \(HeldResources.currentVersion)"
            )
        }
        return held
    }

    /// Replaces the file with `held`, or removes it when `held` is empty.
    public func save(_ held: HeldResources) throws(EnforcementError) {
        if held.isEmpty {
            do {
                try Syscall.unlink(path)
            } catch .noSuchFileOrDirectory {
            } catch {
                throw EnforcementError(.stateFileFailed, "removing \(path)", errno: error)
            }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes: Data
        do {
            bytes = try encoder.encode(held)
        } catch {
            throw EnforcementError(.stateFileFailed, "encoding the state for \(path): \(error)")
        }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw EnforcementError(.stateFileFailed, "writing \(path)", errno: error)
        }
    }
}
