import APNsAuth
import Foundation
import HTTP2Client
import TestSupport
import XCTest

/// The committed TEST-ONLY keys in `fixtures/auth/` and helpers to run the tools and read
/// their tokens.
enum ToolFixtures {
    static let keyID = "TEAMUNI001"
    static let teamID = "TEAM000001"
    static let issuedAt: Int64 = 1_800_000_000

    /// `fixtures/auth/` in this repository.
    static let directory = RepositoryPaths.path("fixtures/auth")

    static func path(_ name: String) -> String { directory + "/" + name }

    /// The `.p8` file of `keyID`.
    static func keyPath(_ keyID: String = keyID) -> String { path("AuthKey_\(keyID).p8") }

    /// The public key committed next to TEAMUNI001's `.p8`: verifying with it does not trust
    /// APNsAuth's own private-to-public derivation.
    static func publicKey() throws -> ES256PublicKey {
        try ES256PublicKey(contentsOfFile: path("AuthKey_\(keyID).pub.pem"))
    }

    /// The JSON object in a base64url JWT part, decoded with Foundation only.
    static func jsonObject(_ part: Substring, file: StaticString = #filePath, line: UInt = #line) throws -> [String:
        Any]
    {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try XCTUnwrap(Data(base64Encoded: base64), "not base64url: \(part)", file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], file: file, line: line)
    }

    /// Whether `authorization` (`bearer <JWT>`) parses as a provider token whose signature the
    /// committed public key verifies; returns the token.
    static func verifiedToken(
        _ authorization: String?, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> ProviderToken {
        let token: ProviderToken
        switch ProviderTokenParser.parse(authorization: authorization) {
        case .success(let parsed): token = parsed
        case .failure(let error): throw error
        }
        XCTAssertTrue(
            ES256.verify(signature: token.signature, message: token.signingInput, key: try publicKey()),
            "signature does not verify", file: file, line: line)
        return token
    }
}

/// Collects what a command writes, line by line.
final class CollectedOutput {
    var lines: [String] = []
    var errors: [String] = []

    var output: SendOutput {
        SendOutput(
            standardOutput: { [unowned self] in lines.append($0) },
            standardError: { [unowned self] in errors.append($0) })
    }
}
