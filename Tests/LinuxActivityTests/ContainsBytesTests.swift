import LinuxActivity
import Testing

/// `containsBytes` finds a path's or a unit name's part by its bytes, wherever it lies, and nothing else: not a
/// text that is only canonically equivalent (`é` as one scalar against `e` and a combining accent).
@Test(arguments: [
    ("/user.slice/user-1000.slice/user@1000.service/app.slice/screentimed.service", "/screentimed.service", true),
    ("/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope", "/user@1000.service/", true),
    ("/user.slice/user-1000.slice/user@10000.service/app.slice/x.scope", "/user@1000.service/", false),
    ("/user.slice/user-1000.slice/session-2.scope", "/screentimed.service", false),
    ("/app.slice/caf\u{E9}.scope", "cafe\u{301}", false),
    ("/app.slice/caf\u{E9}.scope", "caf\u{E9}.scope", true),
    ("", "", true),
    ("a", "ab", false),
])
func containsBytesFindsExactlyTheBytes(text: String, part: String, found: Bool) {
    #expect(text.containsBytes(part) == found)
    #expect(text[...].containsBytes(part) == found)
}
