import Foundation
import SystemPackage

/// The enforcer's state file: `HeldResources` as JSON, replaced atomically (write a temporary file beside it,
/// `fsync(2)`, `rename(2)`), and removed when nothing is held.
public struct StateFile: Sendable {
    /// Where the file lives, e.g. `~/.local/state/screentime/enforcement.json`; a file of another boot holds
    /// nothing.
    public var path: FilePath

    /// Names the state file at `path`; nothing is read or written yet.
    public init(path: FilePath) {
        self.path = path
    }

    /// The file's contents: `HeldResources` and the boot it was written in.
    private struct Stamped: Codable {
        var version: Int
        var apps: [HeldResources.App]
        /// `/proc/sys/kernel/random/boot_id` when written; absent in files of earlier versions.
        var bootID: String?
    }

    /// Reads what a previous run held; empty when there is no file, or when it was written in another boot (the
    /// processes and scopes it names are gone with that boot, and a pid and start time of this boot may match one
    /// of them).
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
        let stamped: Stamped
        do {
            stamped = try JSONDecoder().decode(Stamped.self, from: Data(text.utf8))
        } catch {
            throw EnforcementError(.stateFileFailed, "\(path) is not a valid state file: \(error)")
        }
        guard stamped.version == HeldResources.currentVersion else {
            throw EnforcementError(
                .stateFileFailed,
                "\(path) has format version \(stamped.version), expected \(HeldResources.currentVersion)")
        }
        if let written = stamped.bootID, let now = BootID.current, written != now { return HeldResources() }
        return HeldResources(apps: stamped.apps)
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
            bytes = try encoder.encode(Stamped(version: held.version, apps: held.apps, bootID: BootID.current))
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
