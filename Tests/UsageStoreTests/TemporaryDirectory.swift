import Foundation

/// A directory under the system's temporary directory, removed by `remove()` (call it in a `defer`).
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("usage-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var databasePath: String { url.appendingPathComponent("usage.sqlite").path }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
