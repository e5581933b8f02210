import CLinux
import Foundation
import Glibc
import Testing

@testable import LinuxActivity

/// A path looked up as a process whose root is another folder sees it: links and ".." never lead out of that root.
/// Real files and links, looked up with openat2(2) and with the walk used where openat2 is missing or filtered (a
/// unit's seccomp filter); both give the same answers.
@Suite(.serialized) struct InRootTests {
    @Test(arguments: [false, true])
    func linksAndDotDotStayInsideTheRoot(walking: Bool) throws {
        var template = Array("/tmp/st-in-root-XXXXXX".utf8CString)
        let root = try #require(
            template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { _ = try? FileManager.default.removeItem(atPath: root) }
        clinux_set_in_root_walks_only(walking ? 1 : 0)
        defer { clinux_set_in_root_walks_only(0) }
        try FileManager.default.createDirectory(atPath: root + "/etc/sub", withIntermediateDirectories: true)
        try "inside".write(toFile: root + "/etc/game", atomically: false, encoding: .utf8)
        try "inner passwd".write(toFile: root + "/etc/passwd", atomically: false, encoding: .utf8)
        symlink("/etc/game", root + "/absolute")
        symlink("../../../../../../etc/passwd", root + "/etc/sub/up")
        symlink("/etc", root + "/folder")
        symlink("loop-b", root + "/loop-a")
        symlink("loop-a", root + "/loop-b")
        symlink("/proc/self/root/etc/passwd", root + "/magic")
        mkfifo(root + "/fifo", 0o600)
        let game = try #require(FileSystem.status(root + "/etc/game"))

        #expect(FileSystem.sameFile(FileSystem.status("/etc/game", inRoot: root), game))
        #expect(FileSystem.sameFile(FileSystem.status("/absolute", inRoot: root), game))
        #expect(FileSystem.sameFile(FileSystem.status("folder/game", inRoot: root), game))
        #expect(FileSystem.sameFile(FileSystem.status("/../../etc/./sub/../game", inRoot: root), game))
        #expect(FileSystem.readText("/etc/game", inRoot: root) == "inside")
        // The host's /etc/passwd is never reached: the root's own is.
        #expect(FileSystem.readText("/etc/sub/up", inRoot: root) == "inner passwd")
        #expect(FileSystem.readText("/../../../etc/passwd", inRoot: root) == "inner passwd")
        #expect(FileSystem.status("/loop-a", inRoot: root) == nil)
        #expect(FileSystem.status("/missing", inRoot: root) == nil)
        #expect(FileSystem.status("/etc/game/more", inRoot: root) == nil)
        #expect(FileSystem.status("/etc/game/", inRoot: root) == nil)
        #expect(FileSystem.status("", inRoot: root) == nil)
        #expect(FileSystem.status("/folder/", inRoot: root).map { $0.st_mode & S_IFMT } == S_IFDIR)
        // /proc/self/… is a magic link: refused, or read as text inside the root (which has no /proc).
        #expect(FileSystem.readText("/magic", inRoot: root) == nil)
        // A FIFO is opened without waiting, and refused.
        #expect(FileSystem.readText("/fifo", inRoot: root) == nil)
        #expect(FileSystem.status("/fifo", inRoot: root).map { $0.st_mode & S_IFMT } == S_IFIFO)
    }
}
