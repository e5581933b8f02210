import Enforcement
import Foundation
import Glibc
import ScreenTimeBus
import ScreenTimeModel
import SystemPackage

/// Requests for more time that limited users filed with `screentime ask` (or a shield's button), as the guardian
/// daemon keeps them until the guardian answers: in memory, and in `requests.json` beside the database (written
/// whole, atomically, never through a link) so that a restart loses none. A request lives until the day it was filed
/// ends; ids are never given twice (the file keeps the next one; a broken file is read for the ids it still names), so
/// an answer meant for an old request can't land on a new one.
struct TimeRequests {
    typealias Request = TimeRequest

    let path: String
    private(set) var requests: [Request] = []
    /// Why the file could not be written last time, if it could not.
    private(set) var saveError: String?
    /// What was wrong with the file found at start, and where it was kept aside; nil when it was read (or none).
    private(set) var loadProblem: String?
    private var nextID: UInt32 = 1

    /// The file: the requests and the next id.
    private struct Saved: Codable {
        var nextID: UInt32
        var requests: [Request]

        enum CodingKeys: String, CodingKey {
            case nextID = "next_id"
            case requests
        }
    }

    /// The most requests one user may have waiting.
    static let pendingPerUser = 10
    /// The most bytes of UTF-8 a request keeps of its reason.
    static let reasonBytes = 500

    /// What a request keeps of the reason its user gave: control characters made visible (it is logged, shown in
    /// the guardian's terminal and notifications) and at most `reasonBytes` bytes, cut between characters.
    static func keptReason(_ reason: String) -> String {
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in reason.escapingControlCharacters().unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= reasonBytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    /// Reads the file at `path` (none: no requests; a list of requests, as earlier versions wrote it, is read too).
    /// Anything else there (a file that can't be read as either, or read at all) is kept aside
    /// (`requests.json.broken-TIME`) and none are waiting.
    init(path: String, at now: Date = Date()) {
        self.path = path
        guard !Policy.nothing(at: path) else { return }
        let text = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        if let saved = try? BusJSON.decode(Saved.self, from: text) {
            requests = saved.requests
            nextID = max(saved.nextID, Self.id(after: saved.requests.map(\.id).max() ?? 0))
        } else if let saved = try? BusJSON.decode([Request].self, from: text) {
            requests = saved
            nextID = Self.id(after: saved.map(\.id).max() ?? 0)
        } else {
            // Ids go on after the largest the broken file still names (a cut or damaged file keeps most of them).
            nextID = Self.id(after: Self.largestID(in: text))
            let aside = path + ".broken-\(Int(now.timeIntervalSince1970))"
            let kept = rename(path, aside) == 0
            loadProblem = "\(path) is not a list of requests; " + (kept ? "kept as \(aside)" : "left where it is")
        }
    }

    /// The largest id `text` names, read leniently: each `"id": N`, and `"next_id": N` as the id before N.
    static func largestID(in text: String) -> UInt32 {
        var largest: UInt32 = 0
        for key in ["\"id\"", "\"next_id\""] {
            var rest = Substring(text)
            while let found = rest.range(of: key) {
                rest = rest[found.upperBound...].drop(while: \.isWhitespace)
                guard rest.first == ":" else { continue }
                rest = rest.dropFirst().drop(while: \.isWhitespace)
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard let id = UInt32(digits) else { continue }
                largest = max(largest, key == "\"id\"" ? id : id &- 1)
            }
        }
        return largest
    }

    /// The id that follows `id`: never 0, which answers every request (`AnswerRequest`).
    static func id(after id: UInt32) -> UInt32 { id == UInt32.max ? 1 : id + 1 }

    /// Forgets the requests filed before the start of `today` (local midnight).
    mutating func forget(before today: Date) {
        let kept = requests.filter { $0.filedAt >= today }
        if kept.count != requests.count {
            requests = kept
            save()
        }
    }

    /// Files a request of `user`; nil when they have too many waiting.
    mutating func file(user: ScreenTimeModel.UserID, name: String, seconds: UInt32, reason: String, at now: Date)
        -> Request?
    {
        guard requests.filter({ $0.user == user.rawValue && $0.state == .pending }).count < Self.pendingPerUser else {
            return nil
        }
        let request = Request(
            id: nextID, user: user.rawValue, userName: name, seconds: seconds, reason: reason, filedAt: now,
            state: .pending)
        nextID = Self.id(after: nextID)
        requests.append(request)
        save()
        return request
    }

    /// Marks `request` answered; returns it as it now stands.
    mutating func answer(_ request: Request, approved: Bool, seconds: UInt32?) -> Request {
        var answered = request
        answered.state = approved ? .approved : .denied
        answered.grantedSeconds = approved ? seconds : nil
        guard let index = requests.firstIndex(where: { $0.id == request.id }) else { return answered }
        requests[index] = answered
        save()
        return answered
    }

    private mutating func save() {
        do {
            let saved = Saved(nextID: nextID, requests: requests)
            try AtomicFile.write(Array(try BusJSON.encode(saved).utf8), to: FilePath(path))
            saveError = nil
        } catch {
            saveError = "\(error)"
        }
    }
}
