import Synchronization

/// Runs work in the background one piece after another for each key, in the order it was given: the callbacks of one
/// monitor extension reach it as they happened (an interval's end before the next one's start, which an extension
/// that clears its shields at the end and sets them at the start depends on), as each of Apple's monitor extensions
/// gets one callback at a time. Different keys run side by side.
final class SerialRuns<Key: Hashable & Sendable>: Sendable {
    private let last = Mutex<[Key: Task<Void, Never>]>([:])

    /// Runs `body` once everything given before for `key` has finished.
    func run(_ key: Key, _ body: @escaping @Sendable () async -> Void) {
        last.withLock { last in
            let previous = last[key]
            last[key] = Task.detached {
                await previous?.value
                await body()
            }
        }
    }
}
