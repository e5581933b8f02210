import LinuxActivity
import ScreenTimeBus

/// Asks polkit (`org.freedesktop.PolicyKit1`) whether the sender of a call on the system bus may do an action of
/// `org.screentime.policy`: `org.screentime.manage` (answering requests; `auth_admin_keep`, so a guardian who is
/// not root authenticates once through their session's polkit agent) and `org.screentime.ask` (filing one).
enum PolkitAuthority {
    /// polkit's answer.
    enum Verdict: Equatable {
        case authorized
        case refused
        /// polkit could not be asked (not installed, not running): only root may then.
        case unavailable(String)
    }

    /// Checks `action` for the bus name `sender`, letting polkit ask the user to authenticate when `interactive`
    /// (it then waits up to 5 minutes). Blocks: call it off the bus and engine threads.
    static func check(_ action: String, sender: String, interactive: Bool) -> Verdict {
        do throws(LinuxActivityError) {
            let bus = try Bus.system()
            let subject = BusValue.structure([
                .string("system-bus-name"),
                .array(elementSignature: "{sv}", [.dictionaryEntry(.string("name"), .variant(.string(sender)))]),
            ])
            let reply = try bus.call(
                destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                interface: "org.freedesktop.PolicyKit1.Authority", member: "CheckAuthorization",
                arguments: [
                    subject, .string(action), .array(elementSignature: "{ss}", []), .uint32(interactive ? 1 : 0),
                    .string(""),
                ],
                timeout: .seconds(interactive ? 300 : 25))
            guard case .structure(let fields)? = reply.readAll().first, case .boolean(let authorized)? = fields.first
            else { return .unavailable("polkit's answer could not be read") }
            return authorized ? .authorized : .refused
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// Why a refused caller is refused, and what to do.
    static func refusal(_ action: String, _ verdict: Verdict) -> ScreenTimeBusError {
        switch verdict {
        case .unavailable(let why):
            ScreenTimeBusError(
                .notAuthorized, "polkit could not be asked (\(why)): only root may do this (\(action)); use sudo")
        default:
            ScreenTimeBusError(
                .notAuthorized,
                action == "org.screentime.manage"
                    ? "only a guardian may answer requests for more time (polkit action \(action): root, or an "
                        + "administrator who authenticates)"
                    : "polkit does not allow you to ask for more time (\(action))")
        }
    }
}
