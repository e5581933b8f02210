import Foundation
import Glibc
import LinuxActivity
import ScreenTimeBus
import Testing

@testable import ScreenTimeDaemon

/// `screentime status` (the built executable) asks the running daemon over D-Bus.
@Suite(.serialized) struct StatusOverBusTests {
    /// The `screentime` executable built beside this test bundle.
    static var screentime: String {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("screentime").path
    }

    /// A daemon stopped (as by `screentime stop --release`) is not started again by asking its status, although the
    /// bus could start it (the installed D-Bus service file names screentimed.service).
    @Test func statusDoesNotStartAStoppedDaemon() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.screentime), "build with --build-tests first")
        let directory = try ScratchDirectory()
        let started = directory.path + "/started"
        let bus = try PrivateSessionBus(activatable: [
            ScreenTimeBusName.service: "/bin/sh -c 'touch \(started); exit 1'"
        ])
        let status = try CommandResult(
            "SCREENTIME_BUS_ADDRESS='\(bus.address)' '\(Self.screentime)' status 2>/dev/null; echo \"exit $?\"",
            in: directory)
        #expect(status.output == "exit 3\n")
        #expect(!FileManager.default.fileExists(atPath: started))
        // The bus does start it for a call that lets it (an app's): the test above can fail.
        let connection = DaemonConnection(.address(bus.address))
        #expect(throws: ScreenTimeBusError.self) { try connection.callForString(.daemon, "Status") }
        #expect(FileManager.default.fileExists(atPath: started))
    }

    /// A daemon that owns its name but doesn't answer (here: a connection with no such object, which the bus library
    /// answers with `UnknownObject`) is an error of its own, not "not running".
    @Test func statusSaysWhenTheDaemonRunsButDoesNotAnswer() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.screentime), "build with --build-tests first")
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let owner = try Bus.connect(address: bus.address)
        try owner.requestName(ScreenTimeBusName.service)
        let output = directory.path + "/status.out"
        let child = try TestChild(
            "/bin/sh", ["-c", "SCREENTIME_BUS_ADDRESS='\(bus.address)' '\(Self.screentime)' status 2>&1"],
            standardOutput: output)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while waitpid(child.pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                child.kill()
                Issue.record("status did not end")
                return
            }
            try owner.processPending()
            usleep(10_000)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect((status >> 8) & 0xff == 1, "\(text)")
        #expect(text.contains("screentimed did not answer") && !text.contains("is not running"), "\(text)")
    }

    @Test func statusAsksTheRunningDaemonAndSaysWhenNoneRuns() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.screentime), "build with --build-tests first")
        let bus = try PrivateSessionBus()
        let directory = try ScratchDirectory()
        let command = "SCREENTIME_BUS_ADDRESS='\(bus.address)' '\(Self.screentime)' status"
        let none = try CommandResult(command, in: directory)
        #expect(none.status == 3)
        #expect(none.output == "screentimed is not running\n")

        let running = try await RunningDaemon(
            address: bus.address, directory: directory.path,
            policy: "[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"1h30m\"\n")
        let table = try CommandResult(command, in: directory)
        let json = try CommandResult(command + " --json", in: directory)
        await running.stop()
        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("limit games: used ") && table.output.contains(" of 1h30m00s"), "\(table.output)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let status = try decoder.decode(DaemonStatus.self, from: Data(json.output.utf8))
        #expect(status.mode == "individual")
        #expect(status.policyError == nil)
        let rows = status.rows
        #expect(rows.map(\.name) == ["games"])
        #expect(rows.first?.limitSeconds == 5400)
        #expect(rows.first?.shielded == false)
    }
}
