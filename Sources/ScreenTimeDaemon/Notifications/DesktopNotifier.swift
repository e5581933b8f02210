import Foundation
import Glibc
import LinuxActivity
import ServiceLifecycle
import Synchronization

/// A client of the desktop's notification server (`org.freedesktop.Notifications` on the user's session bus): shows
/// and closes notifications and reports what the user did with them.
///
/// Events come either from `process()` (poll-style, non-blocking) or from `events` while `run()` runs (as a
/// `Service`); use one or the other. Only events about notifications this client showed, sent by the connection
/// that answered its `Notify` calls, are reported: another client on the bus cannot forge an `ActionInvoked`.
public final class DesktopNotifier: Service, Sendable {
    /// What `GetServerInformation` returns.
    public struct ServerInformation: Hashable, Sendable {
        /// The server's name (`gnome-shell`, `dunst`).
        public var name: String
        /// Its vendor.
        public var vendor: String
        /// Its version.
        public var version: String
        /// The specification version it implements (`1.2`).
        public var specificationVersion: String
    }

    static let busName = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    /// The bus address connected to.
    public let address: String
    /// The `app_name` every notification carries.
    public let applicationName: String
    /// The longest wait for the server's answer to a call.
    public let callTimeout: Duration
    /// Events, while `run()` runs; finishes when `run()` returns.
    public let events: AsyncStream<NotificationEvent>

    private let connection: Mutex<Connection>
    private let continuation: AsyncStream<NotificationEvent>.Continuation
    private let wakeup: WakeupDescriptor
    private let stopping = Atomic<Bool>(false)

    /// The session bus address of the user running this process: `$DBUS_SESSION_BUS_ADDRESS`, or
    /// `unix:path=/run/user/UID/bus` where systemd's user manager puts it.
    public static func sessionBusAddress(
        environment: [String: String] = ProcessInfo.processInfo.environment, userID: UInt32 = getuid()
    ) -> String {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        return "unix:path=/run/user/\(userID)/bus"
    }

    /// Connects to the bus at `address` (default: `sessionBusAddress()`) and subscribes to the server's signals.
    /// Does not need the server to be running yet; `notify` says so when it isn't.
    public init(
        address: String? = nil, applicationName: String = "Screen Time", callTimeout: Duration = .seconds(5)
    ) throws(DaemonServiceError) {
        let address = address ?? Self.sessionBusAddress()
        let bus: Bus
        let tracker = SignalTracker()
        do {
            bus = try Bus.connect(address: address)
        } catch {
            throw DaemonServiceError(
                .busUnavailable, "cannot connect to the session bus at \(address)", errno: error.errno)
        }
        do {
            try bus.addMatch("type='signal',interface='\(Self.interface)',path='\(Self.objectPath)'") { message in
                tracker.receive(message)
            }
        } catch {
            throw DaemonServiceError(.busUnavailable, error.message, errno: error.errno)
        }
        self.address = address
        self.applicationName = applicationName
        self.callTimeout = callTimeout
        do { self.wakeup = try WakeupDescriptor() } catch {
            throw DaemonServiceError(.busUnavailable, "cannot create a wake-up pipe", errno: error)
        }
        self.connection = Mutex(Connection(bus: bus, tracker: tracker))
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Shows `notification`; returns the server's id for it.
    ///
    /// Throws `.notificationServerMissing` when nobody owns `org.freedesktop.Notifications`, `.notificationFailed`
    /// when the server answers with an error or not in time, `.busUnavailable` when the bus connection is gone.
    @discardableResult
    public func notify(_ notification: DesktopNotification) throws(DaemonServiceError) -> NotificationID {
        let arguments = notification.notifyArguments(applicationName: applicationName)
        let id: UInt32 = try connection.withLock { (connection) throws(DaemonServiceError) -> UInt32 in
            let reply = try call(connection.bus, "Notify", arguments)
            guard let id = reply.readAll().first?.uint32Value else {
                throw DaemonServiceError(.notificationFailed, "the notification server's Notify reply has no id")
            }
            connection.tracker.server = reply.sender
            connection.tracker.shown.insert(id)
            return id
        }
        return NotificationID(rawValue: id)
    }

    /// Removes the notification `id` (`CloseNotification`); the server then reports `.closed(id, .closedByCall)`.
    public func close(_ id: NotificationID) throws(DaemonServiceError) {
        try connection.withLock { (connection) throws(DaemonServiceError) in
            _ = try call(connection.bus, "CloseNotification", [.uint32(id.rawValue)])
        }
    }

    /// The server's optional features (`actions`, `body`, `persistence`, …): `GetCapabilities`.
    public func capabilities() throws(DaemonServiceError) -> [String] {
        try connection.withLock { (connection) throws(DaemonServiceError) -> [String] in
            let reply = try call(connection.bus, "GetCapabilities", [])
            guard case .array(_, let values)? = reply.readAll().first else { return [] }
            return values.compactMap(\.stringValue)
        }
    }

    /// Who the server is: `GetServerInformation`.
    public func serverInformation() throws(DaemonServiceError) -> ServerInformation {
        try connection.withLock { (connection) throws(DaemonServiceError) -> ServerInformation in
            let values = try call(connection.bus, "GetServerInformation", []).readAll().compactMap(\.stringValue)
            guard values.count == 4 else {
                throw DaemonServiceError(.notificationFailed, "GetServerInformation returned \(values.count) strings")
            }
            return ServerInformation(
                name: values[0], vendor: values[1], version: values[2], specificationVersion: values[3])
        }
    }

    /// Handles what the bus has received, without blocking, and returns the events about this client's
    /// notifications. Throws `.busUnavailable` when the connection is lost.
    public func process() throws(DaemonServiceError) -> [NotificationEvent] {
        try connection.withLock { (connection) throws(DaemonServiceError) -> [NotificationEvent] in
            do throws(LinuxActivityError) {
                try connection.bus.processPending()
            } catch {
                throw DaemonServiceError(.busUnavailable, "lost the session bus at \(address)", errno: error.errno)
            }
            defer { connection.tracker.pending.removeAll() }
            return connection.tracker.pending
        }
    }

    /// Delivers events to `events` until cancelled or graceful shutdown, then finishes `events`. A dedicated thread
    /// waits on the bus socket, so no task of the cooperative pool blocks in `poll(2)`.
    public func run() async throws {
        defer { continuation.finish() }
        try await cancelWhenGracefulShutdown {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                    DetachedThread.start(name: "notifications") { [self] in
                        if let error = eventLoop() { done.resume(throwing: error) } else { done.resume() }
                    }
                }
            } onCancel: {
                self.stopping.store(true, ordering: .sequentiallyConsistent)
                self.wakeup.signal()
            }
        }
    }

    private func eventLoop() -> DaemonServiceError? {
        let socket = connection.withLock { $0.bus.fileDescriptor.rawValue }
        while !stopping.load(ordering: .sequentiallyConsistent) {
            do {
                for event in try process() { continuation.yield(event) }
            } catch {
                return error
            }
            var entries = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&entries, 2, -1) < 0 && errno != EINTR {
                return DaemonServiceError(
                    .busUnavailable, "cannot wait on the session bus", errno: .init(rawValue: errno))
            }
            wakeup.drain()
        }
        return nil
    }

    private func call(_ bus: Bus, _ member: String, _ arguments: [BusValue]) throws(DaemonServiceError) -> BusMessage {
        // A blocking call may read signals into sd-bus's queue while it waits for the reply: let the event thread look.
        defer { wakeup.signal() }
        do {
            return try bus.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.interface, member: member,
                arguments: arguments, timeout: callTimeout)
        } catch {
            switch error.remoteError?.name ?? "" {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                throw DaemonServiceError(
                    .notificationServerMissing,
                    "no notification server on the session bus at \(address): nobody owns \(Self.busName); "
                        + "start the desktop's notification daemon (or dunst, mako)", errno: error.errno)
            case "":
                throw DaemonServiceError(
                    .busUnavailable, "\(Self.interface).\(member) on \(address) failed: \(error.message)",
                    errno: error.errno)
            case let name:
                throw DaemonServiceError(
                    .notificationFailed,
                    "the notification server answered \(member) with \(name): \(error.remoteError?.message ?? "")",
                    errno: error.errno)
            }
        }
    }
}

/// The bus and what is known about the server, guarded together by the notifier's lock.
private struct Connection {
    var bus: Bus
    var tracker: SignalTracker
}

/// Turns the server's signals into events; used only under the notifier's lock (inside `process()`).
private final class SignalTracker {
    /// The unique name that answered `Notify`: the only sender whose signals count.
    var server: String?
    /// Ids of notifications this client showed and that have not closed.
    var shown: Set<UInt32> = []
    /// Events not yet handed out.
    var pending: [NotificationEvent] = []

    func receive(_ message: BusMessage) {
        guard let server, message.sender == server else { return }
        let arguments = message.readAll()
        guard let id = arguments.first?.uint32Value, shown.contains(id) else { return }
        switch message.member {
        case "ActionInvoked":
            if let key = arguments.dropFirst().first?.stringValue {
                pending.append(.actionInvoked(NotificationID(rawValue: id), actionKey: key))
            }
        case "NotificationClosed":
            shown.remove(id)
            pending.append(
                .closed(
                    NotificationID(rawValue: id), reason: .init(code: arguments.dropFirst().first?.uint32Value ?? 0)))
        default:
            break
        }
    }
}
