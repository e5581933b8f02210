import Foundation
import Glibc
import LinuxActivity
import Logging
import ScreenTimeModel
import ServiceLifecycle
import Synchronization
import SystemPackage

/// Counts the notifications apps send the daemon's user: a monitor of the user's session bus that sees each
/// `org.freedesktop.Notifications.Notify` call (whoever shows it), so reports give each app's number of
/// notifications as Apple's `ApplicationActivity.numberOfNotifications` does. The sender is held by a pidfd as soon
/// as the call is seen; the engine loop then resolves it to an app as the collector resolves every process, or by
/// the call's `desktop-entry` hint when the sender is already gone. The daemon's own notifications are left out.
///
/// Runs on a thread of its own; when the bus can't be monitored (no session bus yet, a bus that refuses), it says so
/// once and tries again every 10 s. It can only add to what reports show: enforcement never depends on it.
public final class NotificationWatch: Service, Sendable {
    /// A notification seen on the bus.
    public struct Sighting: Sendable {
        /// The sending process, while it lives.
        public var sender: CallerProcess?
        /// The `desktop-entry` hint: the sending app's desktop entry id, as the app says.
        public var desktopEntry: String?
        /// When it was sent.
        public var time: Date
    }

    static let rules = ["type='method_call',interface='org.freedesktop.Notifications',member='Notify'"]
    private let address: String
    private let user: ScreenTimeModel.UserID
    private let sightings: HandOff<Sighting>
    private let logger: Logger
    private let wakeup: WakeupDescriptor
    private let stopping = Atomic<Bool>(false)

    /// Watches the bus at `address` (default: `user`'s session bus) and hands what it sees to `sightings`.
    init(user: ScreenTimeModel.UserID, address: String? = nil, sightings: HandOff<Sighting>, logger: Logger) throws(Errno) {
        self.user = user
        self.address = address ?? DesktopNotifier.sessionBusAddress()
        self.sightings = sightings
        self.logger = logger
        wakeup = try WakeupDescriptor()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    DetachedThread.start(name: "notification-watch") { [self] in
                        watch()
                        done.resume()
                    }
                }
            } onCancel: {
                self.stopping.store(true, ordering: .sequentiallyConsistent)
                self.wakeup.signal()
            }
        }
    }

    private func watch() {
        var reported = false
        while !stopping.load(ordering: .sequentiallyConsistent) {
            do {
                // The monitor may send nothing once it monitors: who sent a call is asked on a connection of its own.
                let monitor = try Bus.monitor(address: address, rules: Self.rules)
                let driver = try Bus.connect(address: address)
                logger.debug("watching the session bus for the notifications apps send")
                reported = false
                try watch(monitor, asking: driver)
            } catch {
                if !reported {
                    logger.notice(
                        "cannot watch the session bus for app notifications; reports count none until it can",
                        metadata: ["error": "\(error)"])
                    reported = true
                }
                wait(on: nil, timeout: 10_000)
            }
        }
    }

    private func watch(_ monitor: Bus, asking driver: Bus) throws(LinuxActivityError) {
        let ownProcess = getpid()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            while let message = try monitor.nextMonitored() {
                guard message.member == "Notify", message.interface == "org.freedesktop.Notifications",
                    let sender = message.sender
                else { continue }
                let process = driver.processID(ofConnection: sender, timeout: .seconds(1))
                if process?.rawValue == ownProcess { continue }
                let held = process.flatMap { CallerProcess(BusCredentials(user: user, process: $0)) }
                sightings.append(Sighting(sender: held, desktopEntry: Self.desktopEntryHint(of: message), time: Date()))
            }
            wait(on: monitor.fileDescriptor.rawValue, timeout: -1)
        }
    }

    /// The `desktop-entry` hint of a `Notify` call (`susssasa{sv}i`: the seventh argument).
    static func desktopEntryHint(of message: BusMessage) -> String? {
        let arguments = message.readAll()
        guard arguments.count >= 7, case .array(_, let hints) = arguments[6] else { return nil }
        for case .dictionaryEntry(.string("desktop-entry"), .variant(.string(let id))) in hints where !id.isEmpty {
            return id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
        }
        return nil
    }

    private func wait(on socket: Int32?, timeout: Int32) {
        var entries = [pollfd(fd: wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)]
        if let socket { entries.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&entries, nfds_t(entries.count), timeout)
        wakeup.drain()
    }
}
