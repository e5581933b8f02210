import Foundation

/// A directory under /tmp removed, with everything in it, when the value is deinitialised.
final class ScratchDirectory {
    /// The directory's absolute path.
    let path: String

    init() throws {
        var template = Array("/tmp/screentime-plumbing-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        path = String(cString: created)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
