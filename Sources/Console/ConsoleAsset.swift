/// One file of the web console (docs/console.md), as compiled into the binary: SwiftPM's
/// `embedInCode` resources, so the executable needs no file beside it and works offline.
///
/// `GET /console` answers `page`; `GET /console/console.css` and `/console/console.js` the
/// others (`named(_:)`). Each answer carries `securityHeaders`.
public struct ConsoleAsset: Sendable, Equatable {
    /// The file name, e.g. `console.js`.
    public let name: String
    /// The `content-type` to answer with, e.g. `text/javascript; charset=utf-8`.
    public let contentType: String
    /// The file's bytes (UTF-8 text).
    public let bytes: [UInt8]

    /// The HTML page, served at `/console` and `/console/`.
    public static let page = ConsoleAsset(
        name: "console.html", contentType: "text/html; charset=utf-8", bytes: PackageResources.console_html)

    /// Every file, by name: the page, its style sheet and its script.
    public static let all: [ConsoleAsset] = [
        page,
        ConsoleAsset(name: "console.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.console_css),
        ConsoleAsset(
            name: "console.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.console_js),
    ]

    /// The file called `name` (`console.js`), or nil when there is none: no path is ever read
    /// from disk, so `..` and the like find nothing.
    public static func named(_ name: String) -> ConsoleAsset? {
        all.first { $0.name == name }
    }

    /// The headers of every console answer (names lowercase): a Content-Security-Policy that
    /// lets the page run only its own script and style (no inline script, no `eval`, no other
    /// origin, no plugins, no framing) and talk only to its own origin, so that even a recorded
    /// payload rendered by mistake as HTML could run nothing; `nosniff`; no framing; no referrer.
    public static let securityHeaders: [(name: String, value: String)] = [
        (
            "content-security-policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                + "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
        ),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
    ]
}
