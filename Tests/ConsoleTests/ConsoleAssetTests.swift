import XCTest

@testable import Console

final class ConsoleAssetTests: XCTestCase {
    func testThePageAndItsFilesAreEmbedded() throws {
        let page = String(decoding: ConsoleAsset.page.bytes, as: UTF8.self)
        XCTAssertTrue(page.hasPrefix("<!doctype html>"), page)
        XCTAssertTrue(page.contains(#"<script src="/console/console.js"></script>"#))
        XCTAssertTrue(page.contains(#"href="/console/console.css""#))
        XCTAssertEqual(ConsoleAsset.page.contentType, "text/html; charset=utf-8")
        XCTAssertEqual(ConsoleAsset.named("console.js")?.contentType, "text/javascript; charset=utf-8")
        XCTAssertEqual(ConsoleAsset.named("console.css")?.contentType, "text/css; charset=utf-8")
        XCTAssertGreaterThan(try XCTUnwrap(ConsoleAsset.named("console.js")).bytes.count, 1000)
    }

    func testOnlyTheEmbeddedFilesAreFound() {
        XCTAssertNil(ConsoleAsset.named("../Package.swift"))
        XCTAssertNil(ConsoleAsset.named("console.js.map"))
        XCTAssertNil(ConsoleAsset.named(""))
    }

    /// The page has no inline script or style to allow, so the policy can forbid them.
    func testThePageNeedsNoInlineScriptAndThePolicyForbidsIt() throws {
        let page = String(decoding: ConsoleAsset.page.bytes, as: UTF8.self)
        XCTAssertNil(page.range(of: "<script>"))
        XCTAssertNil(page.range(of: "<style"))
        XCTAssertNil(page.range(of: " on[a-z]+=", options: .regularExpression))
        let policy = try XCTUnwrap(ConsoleAsset.securityHeaders.first { $0.name == "content-security-policy" }?.value)
        XCTAssertTrue(policy.contains("script-src 'self'"), policy)
        XCTAssertTrue(policy.contains("default-src 'none'"), policy)
        XCTAssertFalse(policy.contains("unsafe-inline"), policy)
        XCTAssertFalse(policy.contains("unsafe-eval"), policy)
        XCTAssertTrue(ConsoleAsset.securityHeaders.contains { $0 == ("x-content-type-options", "nosniff") })
    }

    /// Record data reaches the page only as text: the script never assigns HTML.
    func testTheScriptNeverWritesHTML() {
        let script = String(decoding: ConsoleAsset.named("console.js")!.bytes, as: UTF8.self)
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] {
            XCTAssertNil(script.range(of: sink), sink)
        }
    }
}
