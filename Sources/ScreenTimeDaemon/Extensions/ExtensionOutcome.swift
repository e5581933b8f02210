/// How a monitor extension's run ended, and what it printed.
public struct ExtensionOutcome: Hashable, Sendable {
    /// How the process ended.
    public enum Termination: Hashable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (the runner's `SIGTERM`/`SIGKILL` after a timeout, or its own crash).
        case signaled(Int32)
        /// It never ran: missing, not executable, or no pipes could be made.
        case failedToStart(DaemonServiceError)
    }

    /// One line the extension wrote.
    public struct OutputLine: Hashable, Sendable {
        /// Which stream it came from.
        public enum Stream: String, Hashable, Sendable {
            case standardOutput = "stdout"
            case standardError = "stderr"
        }

        /// Which stream it came from.
        public var stream: Stream
        /// The line without its newline (cut to the limits' `maximumLineBytes`).
        public var text: String

        /// Creates a line.
        public init(_ stream: Stream, _ text: String) {
            self.stream = stream
            self.text = text
        }
    }

    /// How the process ended.
    public var termination: Termination
    /// Whether it outlived its time limit (and was sent `SIGTERM`, then `SIGKILL`).
    public var timedOut: Bool
    /// Whether it failed for lack of memory: killed by a `SIGKILL` the runner did not send (the kernel's OOM
    /// killer), or failed while reporting an allocation failure (`MemoryError`, `Cannot allocate memory`,
    /// `out of memory`, `failed to allocate`, `bad_alloc`), which is how `RLIMIT_AS` shows itself.
    public var exceededMemoryLimit: Bool
    /// The last lines it wrote, in order.
    public var output: [OutputLine]

    /// Whether it exited with status 0 in time.
    public var succeeded: Bool { termination == .exited(0) && !timedOut }

    /// Creates an outcome.
    public init(termination: Termination, timedOut: Bool, exceededMemoryLimit: Bool, output: [OutputLine]) {
        self.termination = termination
        self.timedOut = timedOut
        self.exceededMemoryLimit = exceededMemoryLimit
        self.output = output
    }
}
