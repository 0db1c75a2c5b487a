import Console
import HTTPFields
import JSONSupport

/// `GET /console` and `GET /console/{asset}`: the web console (docs/console.md), HTML, CSS and
/// JavaScript compiled into the binary, which uses only the JSON endpoints of this API from its
/// own origin.
extension ControlAPI {
    /// The page (`/console`, `/console/`).
    func consolePage() -> ControlResponse {
        Self.consoleResponse(ConsoleAsset.page)
    }

    /// One asset by file name; 404 naming the files there are.
    func consoleAsset(name: String) throws(ControlError) -> ControlResponse {
        guard let asset = ConsoleAsset.named(name) else {
            let names = ConsoleAsset.all.map(\.name).joined(separator: ", ")
            throw .notFound("no console file \(name) (files: \(names))")
        }
        return Self.consoleResponse(asset)
    }

    private static func consoleResponse(_ asset: ConsoleAsset) -> ControlResponse {
        ControlResponse(
            status: 200, headers: ConsoleAsset.securityHeaders.map { HeaderField(name: $0.name, value: $0.value) },
            body: asset.bytes, contentType: asset.contentType)
    }
}
