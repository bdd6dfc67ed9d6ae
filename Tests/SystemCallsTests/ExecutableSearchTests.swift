import SystemCalls
import Testing

@Suite struct ExecutableSearchTests {
    @Test func namesAreLookedForInPathAndPathsTakenAsTheyAre() {
        let files: Set<String> = ["/usr/bin/xterm", "/opt/bin/kitty", "./local"]
        #expect(ExecutableSearch.isInstalled("xterm", path: "/opt/bin:/usr/bin", isExecutable: files.contains))
        #expect(ExecutableSearch.isInstalled("kitty", path: "/opt/bin:/usr/bin", isExecutable: files.contains))
        #expect(!ExecutableSearch.isInstalled("kitty", path: "/usr/bin", isExecutable: files.contains))
        #expect(ExecutableSearch.isInstalled("/opt/bin/kitty", path: "", isExecutable: files.contains))
        #expect(ExecutableSearch.isInstalled("xterm", path: nil, isExecutable: files.contains))
        #expect(!ExecutableSearch.isInstalled("", path: "/usr/bin", isExecutable: { _ in true }))
        #expect(!ExecutableSearch.isInstalled("local", path: "/usr/bin", isExecutable: files.contains))
    }
}
