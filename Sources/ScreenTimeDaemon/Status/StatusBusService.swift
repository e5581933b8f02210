import Foundation
import LinuxActivity
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage

/// The daemon's state on D-Bus: `org.screentime.ScreenTime1` at `/org/screentime/ScreenTime1` on the session bus (the
/// system bus in guardian mode), interface `org.screentime.Daemon1`, method `Status() → s` (a `DaemonStatus` as
/// JSON). Its own thread answers calls from the status the engine loop last published, so a slow client never delays
/// a tick. The name is owned while the daemon runs: no owner means no daemon.
public final class StatusBusService: Service, Sendable {
    /// The well-known name, the object and the interface.
    public static let name = "org.screentime.ScreenTime1"
    public static let path = "/org/screentime/ScreenTime1"
    public static let interface = "org.screentime.Daemon1"

    private let system: Bool
    private let logger: Logger
    private let status = Mutex<DaemonStatus?>(nil)

    /// A service on the session bus, or the system bus when `system`.
    public init(system: Bool, logger: Logger) {
        self.system = system
        self.logger = logger
    }

    /// The status calls answer from now on; the engine loop publishes it as it changes.
    public func publish(_ status: DaemonStatus) {
        self.status.withLock { $0 = status }
    }

    public func run() async {
        let bus: Bus
        do {
            bus = try system ? Bus.system() : Bus.connect(address: DesktopNotifier.sessionBusAddress())
            try bus.addObject(Self.path) { [self] message in answer(message) }
            try bus.requestName(Self.name)
        } catch {
            logger.warning("the status is not offered on D-Bus", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        let thread: EventThread
        do { thread = try EventThread() } catch {
            logger.warning("the status is not offered on D-Bus: no thread", metadata: ["error": "\(error)"])
            return
        }
        let box = BusBox(bus: bus)
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                thread.start(name: "status-bus") {
                    box.serve(until: thread)
                    done.resume()
                }
            }
        } onGracefulShutdown: {
            thread.requestStop()
        }
        bus.releaseName(Self.name)
    }

    private func answer(_ message: BusMessage) -> Bool {
        switch (message.interface, message.member) {
        case (Self.interface, "Status"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            guard let current = status.withLock({ $0 }), let data = try? encoder.encode(current) else {
                try? message.replyError(name: "org.screentime.Error.NotReady", message: "the daemon is starting")
                return true
            }
            try? message.reply([.string(String(decoding: data, as: UTF8.self))])
            return true
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            try? message.reply([.string(Self.introspection)])
            return true
        default:
            return false
        }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
         </interface>
         <interface name="\(interface)">
          <method name="Status"><arg name="json" type="s" direction="out"/></method>
         </interface>
        </node>
        """
}

/// The bus on the service's thread. @unchecked Sendable: made before the thread starts, then used by it alone (the
/// service touches it again only after the thread has ended).
private final class BusBox: @unchecked Sendable {
    let bus: Bus

    init(bus: Bus) { self.bus = bus }

    func serve(until thread: EventThread) {
        var descriptors = [
            pollfd(fd: bus.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
            pollfd(fd: thread.wakeup.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0),
        ]
        while !thread.isStopping {
            while (try? bus.process()) == true {}
            bus.flush()
            _ = poll(&descriptors, 2, -1)
            if descriptors[1].revents != 0 { thread.wakeup.drain() }
        }
    }
}
