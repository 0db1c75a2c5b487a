import Foundation

/// Files of the repository, found from this file's real location, so tests work in any clone
/// and through symlinked test folders.
public enum RepositoryPaths {
    /// The folder holding Package.swift.
    public static let root: URL = find() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)

    /// The absolute path of `relative` (e.g. `fixtures/auth`) inside the repository.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// Finds the MockAPNs checkout (the folder holding `fixtures/` and the MockAPNs `Package.swift`)
    /// so tests can read fixtures wherever the repository is cloned, and also when this file is
    /// compiled through a symlink from another package.
    public static func find(filePath: String = #filePath) -> URL? {
        let file = URL(fileURLWithPath: filePath)
        let starts = [
            file.deletingLastPathComponent(),
            file.resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        ]
        for start in starts {
            var directory = start.standardizedFileURL
            while true {
                if isRoot(directory) { return directory }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        return nil
    }

    /// A fixture's URL, or `nil` when the checkout cannot be found.
    public static func fixture(_ name: String) -> URL? {
        find()?.appendingPathComponent("fixtures").appendingPathComponent(name)
    }

    private static func isRoot(_ directory: URL) -> Bool {
        var isDirectory: ObjCBool = false
        guard
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("fixtures").path, isDirectory: &isDirectory),
            isDirectory.boolValue,
            let manifest = try? String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)
        else { return false }
        return manifest.contains("name: \"MockAPNs\"")
    }
}
