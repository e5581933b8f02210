import Foundation
import Glibc
import ScreenTimeBus
import Testing

@testable import ScreenTimeDaemon

/// Asking for more time, through the built `screentime` and a guardian daemon on a private bus: root's own policy
/// (`users/root.toml`) makes root a limited user who can ask, and root is also the guardian who answers.
@Suite(.serialized) struct TimeRequestTests {
    /// Needs root (a guardian's policy must be root's); under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aRequestIsFiledListedKeptWaitingWhileNothingShieldsAndDenied() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: StatusOverBusTests.screentime),
            "build with --build-tests first")
        let bus = try PrivateSessionBus()
        let folder = try GuardianPolicyFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        mkdir(folder + "/users", 0o755)
        let policy = folder + "/users/root.toml"
        try "[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"1h\"\n".write(
            toFile: policy, atomically: true, encoding: .utf8)
        chmod(policy, 0o644)
        let scratch = try ScratchDirectory()
        let cli = "SCREENTIME_BUS_ADDRESS='\(bus.address)' '\(StatusOverBusTests.screentime)'"
        let running = try await RunningDaemon(address: bus.address, directory: folder, system: true)
        let ask = try CommandResult("\(cli) ask --minutes 5 homework is due", in: scratch)
        let listed = try CommandResult("\(cli) requests --json", in: scratch)
        let approve = try CommandResult("\(cli) approve 1", in: scratch)
        let deny = try CommandResult("\(cli) deny 1", in: scratch)
        let table = try CommandResult("\(cli) requests", in: scratch)
        let extra = try CommandResult("\(cli) extra --minutes 5", in: scratch)
        await running.stop()
        // A restart keeps them.
        let again = try await RunningDaemon(address: bus.address, directory: folder, system: true)
        let kept = try CommandResult("\(cli) requests --json", in: scratch)
        await again.stop()

        #expect(ask.status == 0 && ask.output.hasPrefix("request 1: 5 more minutes asked for"), "\(ask.output)")
        let requests = try BusJSON.decode([TimeRequest].self, from: listed.output)
        #expect(requests.map(\.id) == [1])
        #expect(requests.first?.userName == "root" && requests.first?.seconds == 300)
        #expect(requests.first?.reason == "homework is due" && requests.first?.state == .pending)
        #expect(
            approve.status == 1 && approve.output.contains("no limit shields root now; it stays waiting"),
            "\(approve.output)")
        #expect(deny.status == 0 && deny.output == "request 1 of root: denied\n", "\(deny.output)")
        #expect(table.output.contains("root  5 min  denied  \"homework is due\""), "\(table.output)")
        #expect(extra.status == 1 && extra.output.contains("ask them for more time"), "\(extra.output)")
        #expect(try BusJSON.decode([TimeRequest].self, from: kept.output).map(\.state) == [.denied])
    }
}

/// What a request keeps of its reason, which is logged and shown to the guardian.
@Suite struct RequestReasonTests {
    @Test func controlCharactersAreMadeVisible() {
        #expect(
            TimeRequests.keptReason("homework\n— screentime approve 7\u{1B}[2J")
                == "homework\\n— screentime approve 7\\e[2J")
    }

    @Test func atMostFiveHundredBytesAreKeptEvenOfOneCharacterWithManyMarks() {
        // One character (a letter and 10,000 combining marks) of 20,001 bytes.
        let heavy = "e" + String(repeating: "\u{301}", count: 10_000)
        #expect(heavy.count == 1)
        let kept = TimeRequests.keptReason(heavy)
        #expect(kept.utf8.count <= TimeRequests.reasonBytes && kept.utf8.count >= TimeRequests.reasonBytes - 1)
        #expect(TimeRequests.keptReason(String(repeating: "é", count: 300)).utf8.count == 500)
    }
}

/// Calls waiting for polkit's word are capped by caller, so a loop of them can't pin the daemon's threads.
@Suite struct CallsInFlightTests {
    @Test func eachUserHasAtMostTwoAndAnEndedOneMakesRoom() {
        var calls = CallsInFlight(perUser: 2)
        let admitted = [calls.admit(1001), calls.admit(1001), calls.admit(1001), calls.admit(1002)]
        #expect(admitted == [true, true, false, true])
        calls.end(1001)
        let again = [calls.admit(1001), calls.admit(1001)]
        #expect(again == [true, false])
    }
}

/// The requests file: ids never given twice, a file of earlier versions read, a broken one kept aside.
@Suite struct RequestsFileTests {
    static let filed = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func idsGoOnAfterTheRequestsOfAnEarlierDayAreForgottenAndTheDaemonRestarts() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/requests.json"
        var first = TimeRequests(path: path)
        for _ in 0..<3 { _ = first.file(user: .init(1001), name: "ana", seconds: 60, reason: "", at: Self.filed) }
        first.forget(before: Self.filed + 86_400)
        #expect(first.requests.isEmpty)
        var restarted = TimeRequests(path: path)
        #expect(restarted.loadProblem == nil)
        let next = restarted.file(user: .init(1001), name: "ana", seconds: 60, reason: "", at: Self.filed + 86_500)
        #expect(next?.id == 4)
    }

    @Test func aListOfRequestsAsEarlierVersionsWroteItIsRead() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/requests.json"
        let old = TimeRequest(
            id: 7, user: 1001, userName: "ana", seconds: 300, reason: "homework", filedAt: Self.filed, state: .pending)
        try BusJSON.encode([old]).write(toFile: path, atomically: true, encoding: .utf8)
        var requests = TimeRequests(path: path)
        #expect(requests.requests == [old] && requests.loadProblem == nil)
        #expect(requests.file(user: .init(1001), name: "ana", seconds: 60, reason: "", at: Self.filed)?.id == 8)
    }

    @Test func aBrokenFileIsKeptAsideAndSaid() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/requests.json"
        try "[{\"id\": 1, \"us".write(toFile: path, atomically: true, encoding: .utf8)
        let requests = TimeRequests(path: path, at: Self.filed)
        let aside = path + ".broken-1800000000"
        #expect(requests.requests.isEmpty)
        #expect(requests.loadProblem == "\(path) is not a list of requests; kept as \(aside)")
        #expect(FileManager.default.contents(atPath: aside) == Data("[{\"id\": 1, \"us".utf8))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func idsGoOnAfterThoseABrokenFileStillNames() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/requests.json"
        var first = TimeRequests(path: path)
        for index in 0..<12 {
            _ = first.file(user: .init(1001 + UInt32(index % 3)), name: "ana", seconds: 60, reason: "", at: Self.filed)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // Cut in the middle of the last request, after its id: its answer must not land on the next one.
        let cut = try #require(text.range(of: "\"id\"", options: .backwards)).upperBound
        try String(text[..<text.index(cut, offsetBy: 6)]).write(toFile: path, atomically: true, encoding: .utf8)
        var restarted = TimeRequests(path: path, at: Self.filed)
        #expect(restarted.loadProblem != nil && restarted.requests.isEmpty)
        #expect(restarted.file(user: .init(1001), name: "ana", seconds: 60, reason: "", at: Self.filed)?.id == 13)
        // Ids alone (a cut list, as earlier versions wrote it), and the next id alone, with garbage around them.
        #expect(TimeRequests.largestID(in: "[{\"id\": 7, \"user\": 1001}, {\"id\":9,\"us") == 9)
        #expect(TimeRequests.largestID(in: "\u{1}{\"next_id\" :\n 40, \"requests\": [{\"id\": \"x\"") == 39)
        #expect(TimeRequests.largestID(in: "\u{0}\u{7f}garbage") == 0)
    }

    @Test func aFolderInThePlaceOfTheFileIsKeptAsideToo() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/requests.json"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        var requests = TimeRequests(path: path, at: Self.filed)
        #expect(requests.loadProblem == "\(path) is not a list of requests; kept as \(path).broken-1800000000")
        _ = requests.file(user: .init(1001), name: "ana", seconds: 60, reason: "", at: Self.filed)
        #expect(requests.saveError == nil)
        #expect(TimeRequests(path: path).requests.count == 1)
    }
}
