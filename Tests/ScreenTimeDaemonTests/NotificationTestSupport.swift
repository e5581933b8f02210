import CLinux
import Foundation
import Glibc
import LinuxActivity
import Synchronization

@testable import ScreenTimeDaemon

/// A child process started with `posix_spawn(3)` (standard output to a file), with default signal dispositions and an
/// empty signal mask (`clinux_spawnattr_reset_signals`): the test runner blocks signals that children must not inherit
/// blocked. Foundation's `Process` is not used because it
/// does not reap children reliably under that mask.
struct TestChild {
    let pid: pid_t

    /// Starts `path` with `arguments`, standard output to the file `standardOutput`, and `environment` (`NAME=value`
    /// entries; default: this process's).
    init(_ path: String, _ arguments: [String], standardOutput: String, environment: [String]? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        clinux_spawnattr_reset_signals(&attributes)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { envp?.forEach { free($0) } }
        // Nothing else of this process's: a child that lives on (a dbus-daemon) must not hold a file another test
        // wrote (its program is then "busy", ETXTBSY) or a pipe another test reads to its end.
        clinux_spawn_actions_close_from(&actions, 3)
        let result =
            envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
    }

    /// Waits for the child to exit; returns its wait status.
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// Kills and reaps the child.
    func kill() {
        Glibc.kill(pid, SIGKILL)
        wait()
    }
}

/// A private D-Bus session bus (`dbus-daemon --session --fork`), killed when the value is deinitialised.
final class PrivateSessionBus {
    let address: String
    let pid: pid_t
    private let directory: ScratchDirectory

    /// `activatable`: bus names the bus starts on a call (D-Bus activation), each with its service file's `Exec=`.
    init(activatable: [String: String] = [:]) throws {
        directory = try ScratchDirectory()
        let output = directory.path + "/dbus-daemon.out"
        // The session configuration looks for activatable services in $XDG_DATA_HOME and $XDG_DATA_DIRS.
        var environment: [String]?
        if !activatable.isEmpty {
            let services = directory.path + "/dbus-1/services"
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            for (name, exec) in activatable {
                try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n".write(
                    toFile: services + "/\(name).service", atomically: true, encoding: .utf8)
            }
            environment = ["XDG_DATA_HOME=\(directory.path)", "XDG_DATA_DIRS=\(directory.path)", "PATH=/usr/bin:/bin"]
        }
        let starter = try TestChild(
            "/usr/bin/dbus-daemon", ["--session", "--fork", "--nopidfile", "--print-address=1", "--print-pid=1"],
            standardOutput: output, environment: environment)
        starter.wait()
        // The forked daemon writes both lines before the parent exits; wait a little in case the file lags.
        let lines = eventually(timeout: .seconds(10)) { () -> [String]? in
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").map(String.init)
            return lines.count >= 2 ? lines : nil
        }
        guard let lines, let pid = pid_t(lines[1]) else { throw POSIXError(.EIO) }
        address = lines[0]
        self.pid = pid
    }

    deinit {
        kill(pid, SIGKILL)
    }
}

/// A notification server written with sd-bus on its own thread: owns `org.freedesktop.Notifications`, answers
/// Notify, CloseNotification, GetCapabilities and GetServerInformation, records every call, and emits signals on
/// demand.
final class TestNotificationServer: Sendable {
    struct Call: Hashable, Sendable {
        var member: String
        var arguments: [BusValue]
    }

    private final class CallLog: Sendable {
        let calls = Mutex<[Call]>([])
        let lastID = Mutex<UInt32>(41)
    }

    private let bus: Mutex<Bus>
    private let log: CallLog
    private let wakeup: WakeupDescriptor
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    private let socket: Int32

    init(address: String) throws {
        let connection = try Bus.connect(address: address)
        let log = CallLog()
        try connection.addObject("/org/freedesktop/Notifications") { message in
            guard message.interface == "org.freedesktop.Notifications", let member = message.member else {
                return false
            }
            let arguments = message.readAll()
            log.calls.withLock { $0.append(Call(member: member, arguments: arguments)) }
            switch member {
            case "Notify":
                let id = log.lastID.withLock { value -> UInt32 in
                    value += 1
                    return value
                }
                return (try? message.reply([.uint32(id)])) != nil
            case "CloseNotification":
                return (try? message.reply([])) != nil
            case "GetCapabilities":
                return (try? message.reply([.array(elementSignature: "s", [.string("actions"), .string("body")])]))
                    != nil
            case "GetServerInformation":
                let values: [BusValue] = [
                    .string("test-server"), .string("screentime"), .string("1.0"), .string("1.2"),
                ]
                return (try? message.reply(values)) != nil
            default:
                return false
            }
        }
        try connection.requestName("org.freedesktop.Notifications")
        self.log = log
        socket = connection.fileDescriptor.rawValue
        bus = Mutex(connection)
        wakeup = try WakeupDescriptor()
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Stops the thread and waits for it.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.signal()
        while !finished.withLock({ $0 }) { usleep(1000) }
    }

    var calls: [Call] { log.calls.withLock { $0 } }

    /// Emits `ActionInvoked(id, key)`.
    func invokeAction(id: UInt32, key: String) throws {
        try bus.withLock { bus throws(LinuxActivityError) in
            try bus.emitSignal(
                path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
                member: "ActionInvoked", arguments: [.uint32(id), .string(key)])
        }
    }

    /// Emits `NotificationClosed(id, reason)`.
    func closed(id: UInt32, reason: UInt32) throws {
        try bus.withLock { bus throws(LinuxActivityError) in
            try bus.emitSignal(
                path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
                member: "NotificationClosed", arguments: [.uint32(id), .uint32(reason)])
        }
    }

    private func serve() {
        defer { finished.withLock { $0 = true } }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            guard bus.withLock({ (try? $0.processPending()) != nil }) else { return }
            var entries = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&entries, 2, 1000)
            wakeup.drain()
        }
    }
}

/// Polls `body` until it returns a value or `timeout` passes.
func eventually<T>(timeout: Duration = .seconds(10), _ body: () throws -> T?) rethrows -> T? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let value = try body() { return value }
        usleep(10_000)
    }
    return nil
}
