import Foundation
import LinuxActivity
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel

/// Asking for more time (guardian mode): a limited user files a request, the guardian lists and answers it. The bus
/// server has already asked polkit whether the caller may (`org.screentime.ask`, `org.screentime.manage`); root
/// always may.
extension Daemon {
    /// `Daemon1.AskForTime`: files a request of the caller for `seconds` more today.
    func ask(seconds: UInt32, reason: String, from caller: CallerProcess, at now: Now) throws(ScreenTimeBusError)
        -> UInt32
    {
        guard settings.system else {
            throw ScreenTimeBusError(
                .guardianModeUnavailable,
                "asking for more time is for a guardian's limits (guardian mode); for your own, use screentime extra")
        }
        let user = caller.credentials.user
        guard runtime.plan.covers(user) else {
            throw ScreenTimeBusError(
                .notAuthorized, "no guardian's policy limits uid \(user.rawValue): there is nothing to ask for")
        }
        guard seconds > 0, seconds <= 24 * 3600 else {
            throw ScreenTimeBusError(.invalidArgument, "the time asked for must be more than 0 and at most 24 hours")
        }
        let reason = TimeRequests.keptReason(reason)
        requests.forget(before: Self.startOfDay(at: now))
        guard
            let request = requests.file(
                user: user, name: Logind.userName(of: user), seconds: seconds, reason: reason, at: now.date)
        else {
            throw ScreenTimeBusError(
                .invalidArgument, "you already have \(TimeRequests.pendingPerUser) requests waiting for an answer")
        }
        logRequestsSaveError()
        logger.notice(
            "more time asked for",
            metadata: [
                "request": "\(request.id)", "user": "\(request.userName)", "uid": "\(user.rawValue)",
                "seconds": "\(seconds)", "reason": "\(reason.escapingControlCharacters())",
            ].merging(JournalMessage.timeRequested.metadata) { $1 })
        busRequests.emit(.requestFiled(request))
        return request.id
    }

    /// `Daemon1.Requests`: today's requests as JSON; a guardian (root, or an administrator: `Guardians`) sees
    /// everyone's, anyone else their own.
    func listRequests(for caller: CallerProcess, at now: Now) throws(ScreenTimeBusError) -> String {
        requests.forget(before: Self.startOfDay(at: now))
        let uid = caller.credentials.user.rawValue
        let everyone = Guardians.include(uid)
        return try BusJSON.encode(requests.requests.filter { everyone || $0.user == uid })
    }

    /// `Daemon1.AnswerRequest`: approves (with the time asked for, or `seconds` when not 0) or denies the request
    /// `id`, or every waiting one for id 0. A request is approved only while a limit shields its user; the others
    /// stay waiting. Nobody answers their own request. Returns a line for each request answered.
    func answerRequests(id: UInt32, approve: Bool, seconds: UInt32, from caller: CallerProcess, at now: Now)
        throws(ScreenTimeBusError) -> [String]
    {
        guard settings.system else {
            throw ScreenTimeBusError(
                .guardianModeUnavailable, "requests are answered by a guardian's daemon (guardian mode)")
        }
        guard seconds <= 24 * 3600 else { throw ScreenTimeBusError(.invalidArgument, "at most 24 hours may be given") }
        requests.forget(before: Self.startOfDay(at: now))
        let uid = caller.credentials.user.rawValue
        let waiting = requests.requests.filter { $0.state == .pending && (id == 0 || $0.id == id) }
        if waiting.isEmpty {
            throw ScreenTimeBusError(
                .invalidArgument,
                id == 0 ? "no request is waiting" : "no request \(id) is waiting (screentime requests lists them)")
        }
        var lines: [String] = []
        var refusals: [String] = []
        for request in waiting {
            guard uid == 0 || request.user != uid else {
                refusals.append("request \(request.id) is your own: a guardian answers it")
                continue
            }
            let given = seconds > 0 ? seconds : request.seconds
            if approve {
                var actions: [DaemonRuntime.Action] = []
                let outcome = runtime.grantExtraTime(
                    .seconds(given), limit: nil, to: UserID(request.user), at: now, into: &actions)
                perform(actions)
                if case .failure = outcome {
                    refusals.append("request \(request.id): no limit shields \(request.userName) now; it stays waiting")
                    continue
                }
            }
            let answered = requests.answer(request, approved: approve, seconds: approve ? given : nil)
            logger.notice(
                approve ? "request for more time approved" : "request for more time denied",
                metadata: [
                    "request": "\(request.id)", "user": "\(request.userName)", "uid": "\(request.user)",
                    "seconds": "\(approve ? given : 0)", "by_uid": "\(uid)",
                ].merging(JournalMessage.timeRequestAnswered.metadata) { $1 })
            busRequests.emit(.requestAnswered(answered))
            lines.append(
                "request \(request.id) of \(request.userName): "
                    + (approve ? "approved, \(given / 60) more minute\(given / 60 == 1 ? "" : "s") today" : "denied"))
        }
        logRequestsSaveError()
        if approve { enforce(at: now) }
        if lines.isEmpty { throw ScreenTimeBusError(.invalidArgument, refusals.joined(separator: "; ")) }
        return lines + refusals
    }

    private func logRequestsSaveError() {
        if let error = requests.saveError {
            logger.error(
                "cannot write the requests file; they are kept in memory",
                metadata: ["path": "\(requests.path)", "error": "\(error)"])
        }
    }

    static func startOfDay(at now: Now) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = now.timeZone ?? .current
        return calendar.startOfDay(for: now.date)
    }
}
