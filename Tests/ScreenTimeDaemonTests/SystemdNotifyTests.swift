import Glibc
import Logging
import ServiceLifecycle
import Testing

@testable import ScreenTimeDaemon

// Serialized: these tests change $NOTIFY_SOCKET and $WATCHDOG_*, which sd_notify(3) reads from the process's
// environment; no other suite reads them.
@Suite("sd_notify over a real $NOTIFY_SOCKET", .serialized)
struct SystemdNotifyTests {
    @Test("ready, status, stopping and watchdog send exactly their assignments")
    func assignments() throws {
        let listener = try NotifySocketListener()
        let notifier = SystemdNotifier()
        #expect(try notifier.ready())
        #expect(listener.receive() == "READY=1")
        #expect(try notifier.status("3 sessions, 1 shield\nin force"))
        #expect(listener.receive() == "STATUS=3 sessions, 1 shield in force")
        #expect(try notifier.stopping())
        #expect(listener.receive() == "STOPPING=1")
        #expect(try notifier.watchdog())
        #expect(listener.receive() == "WATCHDOG=1")
    }

    @Test("reloading sends RELOADING=1 and the monotonic clock in microseconds")
    func reloading() throws {
        let listener = try NotifySocketListener()
        let before = SystemdNotifier.monotonicMicroseconds()
        #expect(try SystemdNotifier().reloading())
        let after = SystemdNotifier.monotonicMicroseconds()
        let datagram = try #require(listener.receive())
        let lines = datagram.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first == "RELOADING=1")
        let stamp = try #require(
            lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil })
        #expect(before <= stamp && stamp <= after)
    }

    @Test("without $NOTIFY_SOCKET nothing is sent and the calls say so")
    func notUnderSystemd() throws {
        let environment = EnvironmentOverride(["NOTIFY_SOCKET": nil])
        #expect(try SystemdNotifier().ready() == false)
        _ = environment
    }

    @Test("a $NOTIFY_SOCKET nobody listens on is an error with the errno")
    func deadSocket() throws {
        let directory = try ScratchDirectory()
        let environment = EnvironmentOverride(["NOTIFY_SOCKET": directory.path + "/nobody"])
        #expect {
            try SystemdNotifier().ready()
        } throws: { error in
            (error as? DaemonServiceError)?.code == .notifyFailed && (error as? DaemonServiceError)?.errno != nil
        }
        _ = environment
    }

    @Test("the watchdog interval comes from $WATCHDOG_USEC when $WATCHDOG_PID is this process")
    func watchdogInterval() {
        do {
            let environment = EnvironmentOverride(["WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "\(getpid())"])
            #expect(SystemdNotifier().watchdogInterval() == .milliseconds(2500))
            _ = environment
        }
        do {
            let environment = EnvironmentOverride(["WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "\(getpid() + 1)"])
            #expect(SystemdNotifier().watchdogInterval() == nil)
            _ = environment
        }
        do {
            let environment = EnvironmentOverride(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil])
            #expect(SystemdNotifier().watchdogInterval() == nil)
            _ = environment
        }
    }
}
