import Foundation

/// This process's memory as the kernel counts it, for tests that a repeated operation leaves
/// nothing behind. Private_Dirty is what the benchmarks' targets are set on: pages written by
/// this process alone, which only it can give back.
public enum ProcessMemory {
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Private_Dirty of every mapping, in KiB (`/proc/self/smaps_rollup`).
    public static func privateDirtyKiB() throws -> Int {
        let rollup = try String(contentsOfFile: "/proc/self/smaps_rollup", encoding: .utf8)
        guard let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix("Private_Dirty:") }),
              let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw Unreadable(description: "no Private_Dirty in /proc/self/smaps_rollup:\n\(rollup)") }
        return kib
    }
}
