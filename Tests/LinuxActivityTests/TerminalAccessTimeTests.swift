import Glibc
import Testing

@testable import LinuxActivity

/// When a terminal last had input, as the collector reads it for a console or ssh session's idleness.
struct TerminalAccessTimeTests {
    /// Its owner may set a terminal's access time to any moment (`touch -a -d yesterday /dev/pts/3`), which makes it
    /// look idle; the change time that goes with it can't be set.
    @Test func aTerminalWhoseAccessTimeItsOwnerSetBackIsNotTakenForIdle() throws {
        let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(terminal >= 0, "no pseudo-terminal: \(errno)")
        defer { close(terminal) }
        var number: UInt32 = 0
        try #require(ioctl(terminal, UInt(0x8004_5430), &number) == 0, "TIOCGPTN: \(errno)")
        let path = "/dev/pts/\(number)"
        let now = Int64(time(nil))
        // An hour ago for its access time, its modification time left as it is (UTIME_OMIT).
        var times = [
            timespec(tv_sec: time_t(now - 3600), tv_nsec: 0), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
        ]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0, "utimensat \(path): \(errno)")
        var status = stat()
        try #require(stat(path, &status) == 0 && Int64(status.st_atim.tv_sec) <= now - 3600, "the time was not set")
        let read = try #require(TerminalAccessTimes(devRoot: "/dev").accessTime(String(path.dropFirst(5))))
        #expect(read >= now - 5, "read \(now - read) s ago")
    }
}
