import CLinux
import Glibc

/// A detached POSIX thread for a loop that blocks in `poll(2)` (`pthread_create(3)`, `prctl(2)` `PR_SET_NAME`): the
/// focus sources, the notifier and the daemon's loop don't need Foundation's `Thread` and its run-loop machinery, nor
/// a thread of the cooperative pool blocked in a system call.
public enum DetachedThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new detached thread named `name` (at most 15 bytes are kept by the kernel).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
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
