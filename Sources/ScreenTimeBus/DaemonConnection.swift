import Foundation
import LinuxActivity
import Synchronization

/// A client's connection to `screentimed` over D-Bus, shared by the `FamilyControls`, `DeviceActivity` and
/// `ManagedSettings` modules: one bus connection per process, opened at the first call and opened again after it
/// is lost. Calls are synchronous (`sd_bus_call(3)`), serialized by a lock: sd-bus connections are not thread-safe.
public final class DaemonConnection: Sendable {
    /// Which bus the daemon is on.
    public enum Endpoint: Hashable, Sendable {
        /// The user's session bus: the daemon of individual mode.
        case session
        /// The system bus: the daemon of guardian mode.
        case system
        /// A bus at an address (`unix:path=…`), for tests and unusual set-ups.
        case address(String)
        /// The user's own daemon on the session bus when one runs there, else a guardian's on the system bus when one
        /// runs, else the session bus (which may start the user's): what an app uses, the same code limiting its own
        /// user or a guardian's child.
        case automatic

        /// `$SCREENTIME_BUS_ADDRESS` when set, else `$SCREENTIME_BUS` (`session` or `system`), else `automatic`.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Endpoint
        {
            if let address = environment["SCREENTIME_BUS_ADDRESS"], !address.isEmpty { return .address(address) }
            switch environment["SCREENTIME_BUS"] {
            case "system": return .system
            case "session": return .session
            default: return .automatic
            }
        }
    }

    /// The connection of this process, to the endpoint its environment names.
    public static let shared = DaemonConnection(.fromEnvironment())

    public let endpoint: Endpoint
    private let bus = Mutex<Bus?>(nil)

    /// A connection to the daemon on `endpoint`; nothing is opened until the first call.
    public init(_ endpoint: Endpoint) { self.endpoint = endpoint }

    /// Calls `member` of `interface` on the daemon's object with `arguments` and returns the reply's arguments,
    /// waiting at most `timeout` (default: sd-bus's 25 s; longer for a call the daemon may first have polkit
    /// authenticate). With `startingDaemon` false a daemon that is not running is not started by the bus (D-Bus
    /// activation): asking whether it runs doesn't start it.
    ///
    /// - Throws: the daemon's refusal as its `ScreenTimeBusError`, `.unavailable` when the daemon is not running or
    ///   the bus can't be reached, `.failed` when it runs but did not answer (a timeout, the bus refused the call).
    public func call(
        _ interface: ScreenTimeBusName.Interface, _ member: String, _ arguments: [BusValue] = [],
        timeout: Duration? = nil, startingDaemon: Bool = true
    ) throws(ScreenTimeBusError) -> [BusValue] {
        let outcome = bus.withLock { bus -> Result<[BusValue], ScreenTimeBusError> in
            do throws(LinuxActivityError) {
                let connection: Bus
                if let bus { connection = bus } else { connection = try open() }
                bus = connection
                let reply = try connection.call(
                    destination: ScreenTimeBusName.service, path: ScreenTimeBusName.objectPath,
                    interface: interface.rawValue, member: member, arguments: arguments, timeout: timeout,
                    autoStart: startingDaemon)
                return .success(reply.readAll())
            } catch {
                if let remote = error.remoteError,
                    let refusal = ScreenTimeBusError(name: remote.name, wireMessage: remote.message)
                {
                    return .failure(refusal)
                }
                // Lost, or never reached: the next call opens a new connection.
                bus = nil
                if let remote = error.remoteError, !Self.notRunningErrors.contains(remote.name) {
                    return .failure(
                        ScreenTimeBusError(.failed, "screentimed did not answer on \(endpoint): \(error)"))
                }
                return .failure(
                    ScreenTimeBusError(
                        .unavailable,
                        "screentimed is not reachable on \(endpoint) (\(error)); start it with "
                            + "`systemctl --user start screentimed`"))
            }
        }
        return try outcome.get()
    }

    /// What the bus answers when no daemon runs to take the call (none owns the name, or none could be started).
    static let notRunningErrors: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.systemd1.NoSuchUnit",
        "org.freedesktop.systemd1.UnitMasked", "org.freedesktop.DBus.Error.Spawn.ChildExited",
        "org.freedesktop.DBus.Error.Spawn.ServiceNotFound", "org.freedesktop.DBus.Error.Spawn.FailedToSetup",
    ]

    /// Calls a method that answers one string (JSON, a status, a name).
    public func callForString(
        _ interface: ScreenTimeBusName.Interface, _ member: String, _ arguments: [BusValue] = [],
        startingDaemon: Bool = true
    ) throws(ScreenTimeBusError) -> String {
        guard let text = try call(interface, member, arguments, startingDaemon: startingDaemon).first?.stringValue
        else {
            throw ScreenTimeBusError(.failed, "\(interface.rawValue).\(member) answered no string")
        }
        return text
    }

    private func open() throws(LinuxActivityError) -> Bus {
        switch endpoint {
        case .session: try Bus.session()
        case .system: try Bus.system()
        case .address(let address): try Bus.connect(address: address)
        case .automatic:
            try Self.automaticBus()
        }
    }

    /// The session bus when the user's own daemon runs there, else the system bus when a guardian's runs there,
    /// else the session bus (which starts the user's daemon when it can, or whose call says it is not reachable).
    private static func automaticBus() throws(LinuxActivityError) -> Bus {
        let session: Result<Bus, LinuxActivityError>
        do { session = .success(try Bus.session()) } catch { session = .failure(error) }
        if case .success(let bus) = session, bus.nameOwner(ScreenTimeBusName.service, timeout: .seconds(1)) != nil {
            return bus
        }
        if let system = try? Bus.system(), system.nameOwner(ScreenTimeBusName.service, timeout: .seconds(1)) != nil {
            return system
        }
        return try session.get()
    }
}

/// The JSON the daemon's API carries in its string arguments (`docs/DBUS.md`): Foundation's `JSONEncoder` with sorted
/// keys and dates as ISO 8601 text.
public enum BusJSON {
    /// `value` as JSON text.
    public static func encode<Value: Encodable>(_ value: Value) throws(ScreenTimeBusError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
            throw ScreenTimeBusError(.invalidArgument, "cannot encode \(Value.self) as JSON: \(error)")
        }
    }

    /// The value that JSON `text` holds.
    ///
    /// - Throws: `.invalidArgument` naming the type and what is wrong with the text.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws(ScreenTimeBusError)
        -> Value
    {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode(type, from: Data(text.utf8)) } catch {
            throw ScreenTimeBusError(.invalidArgument, "not valid JSON for \(Value.self): \(error)")
        }
    }
}
