import ScreenTimeModel
import Testing

@Suite struct EscapingTests {
    @Test(arguments: [
        ("game\u{1B}[31mred", "game\\e[31mred"),
        ("bell\u{07}", "bell\\x07"),
        ("csi\u{9B}2J", "csi\\u{9b}2J"),
        ("rtl\u{202E}gpj.exe", "rtl\\u{202e}gpj.exe"),
        ("tab\tand\nline", "tab\\tand\\nline"),
        ("plain Firefox ünïcode", "plain Firefox ünïcode"),
    ])
    func controlCharactersBecomeVisible(input: String, expected: String) {
        #expect(input.escapingControlCharacters() == expected)
        #expect(!input.escapingControlCharacters().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x1B })
    }

    @Test func lineFeedsMayStayForAWholeTable() {
        #expect("a\u{1B}b\nc".escapingControlCharacters(keepingLineFeeds: true) == "a\\eb\nc")
    }
}
