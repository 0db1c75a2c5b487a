import Foundation

/// Files of the repository, found from this file's real location, so tests work in any clone
/// and through symlinked test folders.
public enum RepositoryPaths {
    /// The folder holding Package.swift.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    /// The absolute path of `relative` (e.g. `fixtures/auth`) inside the repository.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }
}
