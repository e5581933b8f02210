import Foundation
import ScreenTimeModel
import Testing
import UsageStore

@testable import ScreenTimeDaemon

/// `screentime report` (the built executable) over a real ledger.
@Suite struct ReportCommandTests {
    /// A ledger with 20 minutes of a game at 10:00 yesterday, the same game in a second session 10:10–10:20.
    func ledger(in directory: ScratchDirectory) throws -> String {
        let path = directory.path + "/usage.sqlite"
        var recorder = UsageRecorder(database: try UsageDatabase.open(at: path), bootID: "boot")
        let yesterday = Calendar.current.date(byAdding: .day, value: -1, to: Calendar.current.startOfDay(for: Date()))!
        let ten = Calendar.current.date(byAdding: .hour, value: 10, to: yesterday)!
        let game = AppUse(
            application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat"))
        for (session, offset, seconds) in [("seat0", 0.0, 1200), ("ssh", 600.0, 600)] {
            recorder.record(
                UsageInterval(
                    user: UserID(getuid()), session: SessionID(session), use: game, start: ten + offset,
                    end: ten + offset + TimeInterval(seconds), duration: .seconds(Int64(seconds))))
        }
        recorder.record(
            Pickup(user: UserID(getuid()), session: SessionID("seat0"), application: game.application, time: ten))
        try recorder.flush()
        return path
    }

    /// An empty ledger file (one the daemon moves aside as damaged when it starts) is refused with what to do, and
    /// left as it was: SQLite would have taken it for a new database, and the report made a ledger of it.
    @Test func anEmptyLedgerIsRefusedAndLeftAsItWas() throws {
        let directory = try ScratchDirectory()
        let path = directory.path + "/usage.sqlite"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let command =
            "'\(StatusOverBusTests.screentime)' report --yesterday --database '\(path)' "
            + "--token-key '\(directory.path)/token.key'"
        let result = try CommandResult(command, in: directory)
        #expect(result.status == 1)
        #expect(
            result.output.contains("the usage database \(path) cannot be read: the file is empty"), "\(result.output)")
        #expect(result.output.contains("screentimed moves it aside"))
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func yesterdayByHourHasARowPerLocalHourAsCSV() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let command =
            "'\(StatusOverBusTests.screentime)' report --yesterday --by hour --format csv --database '\(path)' "
            + "--token-key '\(directory.path)/token.key'"
        let result = try CommandResult(command, in: directory)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "start,end,seconds,pickups,notifications,shielded_seconds,extra_time_seconds")
        // 24 hours (23 or 25 on a day the clock changes).
        #expect((23...25).contains(lines.count - 1))
        let ten = lines.dropFirst().first { $0.split(separator: ",").first?.contains("T10:00:00") == true }
        #expect(ten.map { $0.split(separator: ",")[2...3].joined(separator: ",") } == "1200,1", "\(result.output)")
    }

    @Test func byAppAsJSONCountsOneAppInTwoSessionsOnce() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let command =
            "'\(StatusOverBusTests.screentime)' report --yesterday --by app --format json --database '\(path)' "
            + "--token-key '\(directory.path)/token.key'"
        let result = try CommandResult(command, in: directory)
        #expect(result.status == 0, "\(result.output)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect(object?["totalSeconds"] as? Int == 1200)
        #expect(object?["pickups"] as? Int == 1)
        #expect((object?["rows"] as? [[String: Any]])?.first?["seconds"] as? Int == 1200)
    }

    @Test func aWeekByDayHasARowPerDaySoFar() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let command =
            "'\(StatusOverBusTests.screentime)' report --last-week --by day --format csv --database '\(path)' "
            + "--token-key '\(directory.path)/token.key'"
        let result = try CommandResult(command, in: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 8)
    }
}

/// `screentime export` (the built executable) over a real ledger.
@Suite struct ExportCommandTests {
    @Test func exportWritesEveryIntervalWithAHeaderToAPrivateFile() throws {
        let directory = try ScratchDirectory()
        let path = try ReportCommandTests().ledger(in: directory)
        let file = directory.path + "/export.csv"
        let command =
            "'\(StatusOverBusTests.screentime)' export --format csv --output '\(file)' --database '\(path)' "
            + "--token-key '\(directory.path)/token.key'"
        let result = try CommandResult(command, in: directory)
        #expect(result.status == 0, "\(result.output)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "start,end,seconds,app_id,app_name,category,session,user")
        #expect(lines.count == 3)
        #expect(lines.dropFirst().map { $0.split(separator: ",")[2] } == ["1200.000", "600.000"])
        #expect(lines.dropFirst().map { $0.split(separator: ",")[6] } == ["seat0", "ssh"])
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func exportAsJSONReadsBack() throws {
        let directory = try ScratchDirectory()
        let path = try ReportCommandTests().ledger(in: directory)
        let result = try CommandResult(
            "'\(StatusOverBusTests.screentime)' export --format json --database '\(path)' --token-key '\(directory.path)/token.key'",
            in: directory)
        #expect(result.status == 0, "\(result.output)")
        let records = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        #expect(records?.count == 2)
        #expect(records?.first?["seconds"] as? Double == 1200)
        #expect(records?.first?["session"] as? String == "seat0")
    }
}
