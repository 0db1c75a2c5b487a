import Foundation

/// The repository root, found from this file's path (works in any clone).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
    while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        url = url.deletingLastPathComponent()
    }
    return url
}()
