import CLinux
import Glibc

/// A detached POSIX thread for a focus source's event loop (`pthread_create(3)`, `prctl(2)` `PR_SET_NAME`); the
/// collector doesn't need Foundation's `Thread` and its run-loop machinery for a loop that blocks in `poll(2)`.
enum FocusThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new detached thread named `name` (at most 15 bytes are kept by the kernel).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            _ = clinux_set_thread_name(body.name)
            body.run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }
}
