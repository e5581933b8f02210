import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// The ledger behind `includesPastActivity` is written compactly into snapshots and read back exactly.
@Suite struct UsageLedgerCodingTests {
    @Test func runsWithGapsAndRepeatedAppsRoundTripExactly() throws {
        var ledger = UsageLedger()
        let start: Int64 = 1_772_953_200_000_000_000
        ledger.record(start: start, length: 30_000_000_000, uses: [use("game")])
        ledger.record(start: start + 30_000_000_000, length: 1_500_000_000, uses: [use("editor", category: "work")])
        ledger.record(start: start + 40_000_000_000, length: 5, uses: [use("game")])
        ledger.record(start: start + 50_000_000_000, length: 7, uses: [])
        #expect(ledger.runs.count == 4)
        let data = try JSONEncoder().encode(ledger)
        #expect(try JSONDecoder().decode(UsageLedger.self, from: data) == ledger)
        // Each list of apps is written once.
        #expect(String(decoding: data, as: UTF8.self).components(separatedBy: "\"game\"").count == 2)
    }

    @Test func aRunNamingNoListOfAppsIsRefused() {
        let corrupt = Data(#"{"uses":[[]],"runs":[0,5,1]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(UsageLedger.self, from: corrupt) }
        let truncated = Data(#"{"uses":[[]],"runs":[0,5]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(UsageLedger.self, from: truncated) }
    }
}
