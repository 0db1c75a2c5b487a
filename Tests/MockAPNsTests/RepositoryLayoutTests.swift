import Foundation
import TestSupport
import XCTest

/// The test tree mirrors the source tree folder for folder (README, "How it is built"), so the
/// tests of a part are where its sources say.
final class RepositoryLayoutTests: XCTestCase {
    private let files = FileManager.default

    /// Folders below `root`, relative to it, found recursively.
    private func folders(below root: String) -> Set<String> {
        guard let walker = files.enumerator(atPath: root) else { return [] }
        var found: Set<String> = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if files.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), isDirectory.boolValue {
                found.insert(relative)
            }
        }
        return found
    }

    func testEveryLibraryTargetFolderHasItsTestFolder() throws {
        let sources = RepositoryPaths.path("Sources")
        let tests = RepositoryPaths.path("Tests")
        let testFolders = folders(below: tests)
        // System-library targets hold only a module map; the executable is tested live (tests/live).
        let libraries = try files.contentsOfDirectory(atPath: sources).filter {
            !files.fileExists(atPath: sources + "/" + $0 + "/module.modulemap") && $0 != "mock-apns"
                && !$0.hasPrefix(".")
        }
        XCTAssertTrue(libraries.contains("APNsCore"), "\(libraries)")
        XCTAssertTrue(libraries.contains("ControlAPI") && libraries.contains("Configuration"), "\(libraries)")
        XCTAssertFalse(libraries.contains("CNGHTTP2"), "\(libraries)")
        var missing: [String] = []
        for target in libraries {
            let mirrored = ["\(target)Tests"] + folders(below: sources + "/" + target).map { "\(target)Tests/\($0)" }
            missing += mirrored.filter { !testFolders.contains($0) }
        }
        XCTAssertEqual(missing.sorted(), [], "test folders missing for these source folders")
    }

    func testEveryTestFolderMirrorsASourceFolder() throws {
        let sources = folders(below: RepositoryPaths.path("Sources"))
        let strays = folders(below: RepositoryPaths.path("Tests")).filter { folder in
            let parts = folder.split(separator: "/", maxSplits: 1).map(String.init)
            // Shared helpers, not tests of a target.
            if parts[0] == "TestSupport" || parts[0] == "TestFixtures" { return false }
            guard parts[0].hasSuffix("Tests") else { return true }
            let source = String(parts[0].dropLast("Tests".count)) + (parts.count > 1 ? "/" + parts[1] : "")
            return !sources.contains(source)
        }
        XCTAssertEqual(strays.sorted(), [], "test folders with no source folder of the same name")
    }
}
