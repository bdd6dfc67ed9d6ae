import Foundation

extension DesktopSession {
    /// How many pixels of each colour (`#RRGGBB`) are in `area` of the screen now: a picture
    /// of it (`screenshot`) counted by ImageMagick. For "this icon is on screen": a flat fill of
    /// the icon's own colour keeps its exact value at any size, where its edges blend.
    public func colours(in area: ScreenArea) async throws -> [String: Int] {
        let path = FileManager.default.temporaryDirectory.appending(path: "colours-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await screenshot(to: path, area: area)
        // Lines such as "   1079: (47,93,138) #2F5D8A srgb(47,93,138)".
        var counts: [String: Int] = [:]
        for line in try await runChecked(["convert", path, "-format", "%c", "histogram:info:-"]).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let count = fields.first.flatMap({ Int($0.dropLast()) }),
                  let hex = fields.first(where: { $0.hasPrefix("#") })
            else { continue }
            counts[String(hex.prefix(7)).uppercased(), default: 0] += count
        }
        return counts
    }
}
