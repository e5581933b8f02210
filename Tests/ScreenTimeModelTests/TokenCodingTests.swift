import Foundation
import ScreenTimeModel
import Testing

@Test func tokensEncodeAsBareStrings() throws {
    let token = ApplicationToken(rawValue: "ab12")
    let data = try JSONEncoder().encode([token])
    #expect(String(decoding: data, as: UTF8.self) == #"["ab12"]"#)
    #expect(try JSONDecoder().decode([ApplicationToken].self, from: data) == [token])
}

@Test func onlyActivePresenceCounts() {
    #expect(SessionPresence.active.counts)
    #expect(!SessionPresence.idle.counts)
    #expect(!SessionPresence.locked.counts)
    #expect(!SessionPresence.background.counts)
}
