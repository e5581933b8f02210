import CScreenTimeBus
import CSystemd
import Foundation
import LinuxActivity
import Logging
import ScreenTimeBus
import ServiceLifecycle
import Synchronization
import SystemPackage

/// The daemon's D-Bus service, `org.screentime.ScreenTime1` at `/org/screentime/ScreenTime1`, as a service: its own
/// thread waits on the bus connection and on a wake-up descriptor. A method call becomes a `BusRequest` queued for
/// the engine loop's thread; the call message stays referenced until the loop's answer comes back, and the reply is
/// sent from this thread (sd-bus connections are not thread-safe). Properties are read from the state the loop
/// published last; signals the loop queued are sent when they come.
public final class ScreenTimeBusServer: Service, @unchecked Sendable {
    // @unchecked: the stored properties are immutable and Sendable but for `logger` (a value) and `endpoint`.
    private let endpoint: DaemonConnection.Endpoint
    private let requests: BusRequestQueue
    private let logger: Logger
    private let targetsSignals: Bool

    /// A server on `endpoint` that hands requests to `requests`. With `targetsSignals` (guardian mode) each signal
    /// goes only to the connections of the users it concerns (`BusSignal.concerns`), not to every listener.
    public init(
        endpoint: DaemonConnection.Endpoint, requests: BusRequestQueue, targetsSignals: Bool = false, logger: Logger
    ) {
        self.endpoint = endpoint
        self.requests = requests
        self.targetsSignals = targetsSignals
        self.logger = logger
    }

    private func open() throws(DaemonServiceError) -> Bus {
        do {
            switch endpoint {
            // A daemon serves one bus: automatic is its user's session bus.
            case .session, .automatic: return try Bus.session()
            case .system: return try Bus.system()
            case .address(let address): return try Bus.connect(address: address)
            }
        } catch {
            throw DaemonServiceError(.busUnavailable, "cannot connect the D-Bus service to \(endpoint): \(error)")
        }
    }

    /// Serves until the group shuts down. A bus that can't be reached, or a name another daemon owns, leaves the
    /// daemon running without its API (logged as an error), so limits are still enforced.
    public func run() async throws {
        let bus: Bus
        let thread: EventThread
        let connection: ServerConnection
        do {
            bus = try open()
            do { thread = try EventThread() } catch {
                throw DaemonServiceError(.busUnavailable, "cannot create the bus thread's wake-up pipe", errno: error)
            }
            connection = ServerConnection(
                bus: bus, requests: requests, wakeup: thread.wakeup, targetsSignals: targetsSignals, logger: logger)
            try connection.export()
            do { try bus.requestName(ScreenTimeBusName.service) } catch {
                connection.unexport()
                throw DaemonServiceError(
                    .busUnavailable,
                    "cannot own \(ScreenTimeBusName.service) on \(endpoint): is another screentimed running? (\(error))"
                )
            }
        } catch {
            logger.error("the D-Bus API is not offered", metadata: ["error": "\(error)"])
            try? await gracefulShutdown()
            return
        }
        defer { connection.unexport() }
        requests.attachServer(thread.wakeup)
        logger.info("serving D-Bus", metadata: ["name": "\(ScreenTimeBusName.service)", "bus": "\(endpoint)"])
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                thread.start(name: "bus") {
                    connection.serve(until: thread)
                    done.resume()
                }
            }
        } onGracefulShutdown: {
            thread.requestStop()
        }
        requests.attachServer(nil)
        bus.releaseName(ScreenTimeBusName.service)
        bus.flush()
    }
}

/// Calls in progress by caller's uid, at most `perUser` each.
struct CallsInFlight {
    let perUser: Int
    private var counts: [UInt32: Int] = [:]

    init(perUser: Int) { self.perUser = perUser }

    /// Counts one more call of `uid`; false (and nothing counted) when `uid` already has `perUser`.
    mutating func admit(_ uid: UInt32) -> Bool {
        guard counts[uid, default: 0] < perUser else { return false }
        counts[uid, default: 0] += 1
        return true
    }

    /// One call of `uid` ended.
    mutating func end(_ uid: UInt32) {
        counts[uid, default: 1] -= 1
        if counts[uid] == 0 { counts[uid] = nil }
    }
}

/// The connection's side of the server: the exported vtables, the callbacks sd-bus calls, and the replies and
/// signals waiting to be sent. @unchecked Sendable: `bus`, the slots and `handlers` are used only by the bus thread
/// once `serve` runs (and by `run()` before and after); `replies` is behind its lock.
private final class ServerConnection: @unchecked Sendable {
    let bus: Bus
    let requests: BusRequestQueue
    let wakeup: WakeupDescriptor
    let targetsSignals: Bool
    let logger: Logger
    /// The uid of each connection on the bus, as far as asked (signals targeted only).
    private var peers: [String: UInt32] = [:]
    private let replies = Mutex<[PendingReply]>([])
    /// Authorization checks waiting for polkit, by caller's uid: at most two each, so that calls in a loop
    /// (answered by an agent that never replies) can't pin the daemon's threads and bus connections.
    private let checksInFlight = Mutex(CallsInFlight(perUser: 2))
    /// Calls waiting for the loop's answer, by caller's uid (root's not counted): each holds its caller's pidfd and
    /// a place in the loop's queue, so a user's calls in a loop can take neither the daemon's descriptors nor its
    /// loop's time.
    private let callsInFlight = Mutex(CallsInFlight(perUser: 16))
    private var handlers = UnsafeMutablePointer<stbus_handlers>.allocate(capacity: 1)
    private var slots = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: Int(stbus_interface_count))

    init(bus: Bus, requests: BusRequestQueue, wakeup: WakeupDescriptor, targetsSignals: Bool, logger: Logger) {
        self.bus = bus
        self.requests = requests
        self.wakeup = wakeup
        self.targetsSignals = targetsSignals
        self.logger = logger
        slots.initialize(repeating: nil, count: Int(stbus_interface_count))
    }

    deinit {
        handlers.deallocate()
        slots.deallocate()
    }

    /// Adds the vtables of every interface to the bus.
    ///
    /// The C function is `sd_bus_add_object_vtable(3)`, through `stbus_export`.
    func export() throws(DaemonServiceError) {
        handlers.initialize(
            to: stbus_handlers(
                method: serverMethod, property: serverProperty, context: Unmanaged.passUnretained(self).toOpaque()))
        let result = stbus_export(bus.handle, handlers, slots)
        guard result >= 0 else {
            throw DaemonServiceError(
                .busUnavailable, "cannot export \(ScreenTimeBusName.objectPath)", errno: Errno(rawValue: -result))
        }
    }

    /// Removes the vtables. The C function is `sd_bus_slot_unref(3)`.
    func unexport() {
        for index in 0..<Int(stbus_interface_count) { slots[index] = sd_bus_slot_unref(slots[index]) }
    }

    /// Handles calls, sends replies and signals until `thread` is asked to stop.
    func serve(until thread: EventThread) {
        let descriptors: DescriptorSet
        do { descriptors = try DescriptorSet([bus.fileDescriptor, wakeup.fileDescriptor]) } catch {
            logger.error("the bus thread cannot wait (epoll)", metadata: ["error": "\(error)"])
            return
        }
        while !thread.isStopping {
            do { try bus.processPending() } catch {
                logger.error("the D-Bus service lost its bus", metadata: ["error": "\(error)"])
                return
            }
            sendReplies()
            sendSignals()
            // The bus driver's answers `sendSignals` waited for may have come with calls, read but not handled yet:
            // handled now, not at the next wake-up.
            do { try bus.processPending() } catch {
                logger.error("the D-Bus service lost its bus", metadata: ["error": "\(error)"])
                return
            }
            bus.flush()
            if descriptors.wait(timeoutMilliseconds: -1) & 0b10 != 0 { wakeup.drain() }
        }
        sendReplies()
        sendSignals()
        bus.flush()
    }

    /// Answers one method call: queues its request for the loop and keeps the message until the answer.
    func handle(_ message: BusMessage, error: UnsafeMutablePointer<sd_bus_error>) -> Int32 {
        let request: BusRequest
        let caller: CallerProcess
        var counted: UInt32?
        do throws(ScreenTimeBusError) {
            guard let interface = message.interface.flatMap(ScreenTimeBusName.Interface.init(rawValue:)) else {
                throw ScreenTimeBusError(.invalidArgument, "unknown interface \(message.interface ?? "")")
            }
            request = try BusRequest(interface: interface, member: message.member ?? "", arguments: message.readAll())
            guard let credentials = try? message.senderCredentials() else {
                throw ScreenTimeBusError(.notAuthorized, "the bus did not vouch for the caller's process")
            }
            let uid = credentials.user.rawValue
            if uid != 0 {
                guard callsInFlight.withLock({ $0.admit(uid) }) else {
                    throw ScreenTimeBusError(
                        .unavailable, "16 calls of yours already wait for their answers; wait for those first")
                }
                counted = uid
            }
            guard let process = CallerProcess(credentials) else {
                throw ScreenTimeBusError(.notAuthorized, "the caller's process has already exited")
            }
            caller = process
        } catch let failure {
            if let counted { callsInFlight.withLock { $0.end(counted) } }
            return sd_bus_error_set(error, failure.code.rawValue, failure.wireMessage)
        }
        let pending = PendingReply(message: message)
        let reply: BusRequestQueue.Completion = { [self, counted] answer in
            if let counted { callsInFlight.withLock { $0.end(counted) } }
            pending.answer = answer
            replies.withLock { $0.append(pending) }
            wakeup.signal()
        }
        // What needs polkit's word is asked on a thread of its own (a guardian may take a while to authenticate);
        // root needs none. When polkit can't be asked, only root answers requests; anyone may still file one (the
        // daemon takes them only from users a policy limits).
        if let action = request.polkitAction, caller.credentials.user.rawValue != 0 {
            guard let sender = message.sender else {
                reply(.failure(PolkitAuthority.refusal(action, .unavailable("the call has no sender"))))
                return 1
            }
            let uid = caller.credentials.user.rawValue
            let admitted = checksInFlight.withLock { $0.admit(uid) }
            guard admitted else {
                reply(
                    .failure(
                        ScreenTimeBusError(
                            .unavailable,
                            "calls of yours already wait for an authorization; answer those first"
                        )))
                return 1
            }
            let requests = requests
            Thread.detachNewThread { [self] in
                defer { checksInFlight.withLock { $0.end(uid) } }
                let verdict = PolkitAuthority.check(
                    action, sender: sender, interactive: action == "org.screentime.manage")
                if verdict == .authorized || (action == "org.screentime.ask" && verdict != .refused) {
                    requests.submit(request, from: caller, completion: reply)
                } else {
                    reply(.failure(PolkitAuthority.refusal(action, verdict)))
                }
            }
            return 1
        }
        requests.submit(request, from: caller, completion: reply)
        return 1
    }

    /// Appends the value of a `Daemon1` property.
    func property(_ name: String, to reply: BusMessage) -> Int32 {
        let state = requests.state
        let value: BusValue =
            switch name {
            case "Version": .string(state.version)
            case "Mode": .string(state.mode)
            case "PolicyPath": .string(state.policyPath)
            case "PolicyError": .string(state.policyError)
            case "ShieldedUsers": .uint32(state.shieldedUsers)
            case "StoreMovedAside": .string(state.storeMovedAside)
            default: .string("")
            }
        return reply.append([value])
    }

    private func sendReplies() {
        let ready = replies.withLock { queued -> [PendingReply] in
            defer { queued = [] }
            return queued
        }
        for reply in ready {
            do throws(LinuxActivityError) {
                switch reply.answer {
                case .success(let answer): try reply.message.reply(answer.values)
                case .failure(let refusal):
                    try reply.message.replyError(name: refusal.code.rawValue, message: refusal.wireMessage)
                case nil: break
                }
            } catch {
                logger.warning("cannot answer a D-Bus call", metadata: ["error": "\(error)"])
            }
        }
    }

    private func sendSignals() {
        let signals = requests.takeSignals()
        guard !signals.isEmpty else { return }
        let connections = targetsSignals && signals.contains { !$0.isForEveryone } ? currentPeers() : []
        for signal in signals {
            guard let (interface, member, arguments) = Self.wire(signal) else {
                _ = stbus_emit_daemon_properties_changed(bus.handle)
                continue
            }
            let destinations: [String?] =
                targetsSignals
                ? connections.filter { signal.concerns($0.uid, isGuardian: Guardians.include) }.map(\.name) : [nil]
            for destination in destinations {
                do throws(LinuxActivityError) {
                    try bus.emitSignal(
                        path: ScreenTimeBusName.objectPath, interface: interface.rawValue, member: member,
                        arguments: arguments, destination: destination)
                } catch {
                    logger.warning("cannot emit a D-Bus signal", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// The connections on the bus now with their uids, but this daemon's own: the bus driver is asked for each
    /// connection once. Empty (and logged) when the bus driver does not answer.
    private func currentPeers() -> [(name: String, uid: UInt32)] {
        guard let names = bus.connectionNames(timeout: .seconds(2)) else {
            logger.warning("cannot list the connections on the bus: signals are not sent")
            return []
        }
        let own = bus.uniqueName
        var known: [String: UInt32] = [:]
        for name in names where name != own {
            if let uid = peers[name] ?? bus.unixUser(ofConnection: name, timeout: .seconds(2)) { known[name] = uid }
        }
        peers = known
        return known.map { ($0.key, $0.value) }
    }

    /// A signal's interface, member and arguments; nil for the properties' change, which sd-bus builds.
    private static func wire(_ signal: BusSignal) -> (ScreenTimeBusName.Interface, String, [BusValue])? {
        switch signal {
        case .callback(let user, let client, let callback, let activity, let event):
            (
                .activities, "Callback",
                [
                    .uint32(user.rawValue), .string(client.rawValue), .string(callback.rawValue), .string(activity),
                    .string(event),
                ]
            )
        case .shieldChanged(let user, let json): (.settings, "ShieldChanged", [.uint32(user.rawValue), .string(json)])
        case .notification(let user, let kind, let limit, let title, let body, let secondary):
            (
                .daemon, "Notification",
                [
                    .uint32(user.rawValue), .string(kind), .string(limit), .string(title), .string(body),
                    .string(secondary),
                ]
            )
        case .requestFiled(let request): (.daemon, "RequestFiled", [.string((try? BusJSON.encode(request)) ?? "{}")])
        case .requestAnswered(let request):
            (.daemon, "RequestAnswered", [.string((try? BusJSON.encode(request)) ?? "{}")])
        case .daemonPropertiesChanged: nil
        }
    }
}

/// A method call waiting for the loop's answer. @unchecked Sendable: `message` is touched only by the bus thread
/// (created in the method handler, replied in `sendReplies`); `answer` is written by the loop's thread before the
/// reply is queued under the queue's lock, and read by the bus thread after taking it from that queue.
private final class PendingReply: @unchecked Sendable {
    let message: BusMessage
    var answer: Result<BusAnswer, ScreenTimeBusError>?
    init(message: BusMessage) { self.message = message }
}

private let serverMethod: stbus_method_fn = { message, context, error in
    guard let message, let context, let error else { return -22 }
    let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
    return connection.handle(BusMessage(borrowing: message), error: error)
}

private let serverProperty: stbus_property_fn = { interface, property, reply, context, _ in
    guard let property, let reply, let context else { return -22 }
    let connection = Unmanaged<ServerConnection>.fromOpaque(context).takeUnretainedValue()
    return connection.property(String(cString: property), to: BusMessage(borrowing: reply))
}
