import CLinux
import SystemPackage

/// The daemon's async work (the service group, the store writer, signal handling) is light; it runs on one thread of
/// its own instead of libdispatch's pool, whose monitor would wake the idle daemon every second. The engine loop and
/// the focus sources have threads of their own either way.
public enum SingleThreadExecutor {
    /// Makes one thread run every job of the global executor from now on. Call it first thing in `main`, before any
    /// task is created.
    public static func install() throws(Errno) {
        let error = clinux_install_single_thread_executor()
        guard error == 0 else { throw Errno(rawValue: error) }
    }
}
