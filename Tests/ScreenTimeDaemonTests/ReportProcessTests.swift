import Foundation
import Glibc
import Testing

@testable import DeviceActivity

/// How a report extension is run for `DeviceActivityReport.render()`: real scripts, both streams read whole.
@Suite("Report extensions as real child processes")
struct ReportProcessTests {
    @Test("both streams are read to their end, past a pipe's buffer, and the exit status comes back")
    func streamsAndStatus() throws {
        let directory = try ScratchDirectory()
        let script = try writeScript(
            directory, "report",
            "yes o | head -c 200000; yes e | head -c 100000 >&2; echo \" $*\"; exit 3")
        let (status, output, errors) = ReportProcess.run(script, ["--context", "total"])
        #expect(status == 3)
        #expect(output.count == 200_000 + " --context total\n".count)
        #expect(output.hasPrefix("o\no\n") && output.hasSuffix("\n --context total\n"))
        #expect(errors.count == 100_000 && errors.allSatisfy { $0 == "e" || $0 == "\n" })
    }

    @Test("the extension gets standard input, output and error alone, not a descriptor the app left open")
    func onlyStandardStreamsAreInherited() throws {
        let directory = try ScratchDirectory()
        let leaked = try openLeakedDescriptor()
        defer { close(leaked) }
        let script = try writeScript(directory, "report", "for f in /proc/$$/fd/*; do echo \"${f##*/}\"; done")
        let (status, output, _) = ReportProcess.run(script, [])
        #expect(status == 0)
        let open = Set(output.split(separator: "\n").map(String.init))
        #expect(open.isSuperset(of: ["1", "2"]))
        #expect(!open.contains("\(leaked)"), "inherited: \(open.sorted())")
    }

    @Test("a missing program is status 127 with the reason; a signal that ends it is 128 + its number")
    func failures() throws {
        let directory = try ScratchDirectory()
        let missing = ReportProcess.run(directory.path + "/absent", [])
        #expect(missing.0 == 127 && missing.2.contains("No such file"))
        let killed = try writeScript(directory, "report", "kill -TERM $$")
        #expect(ReportProcess.run(killed, []).0 == 128 + SIGTERM)
    }
}
