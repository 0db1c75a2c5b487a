import APNsCore
import Foundation

/// Reads a key manifest: a JSON file listing APNs auth keys (the format of
/// `fixtures/auth/keys.json`):
///
/// ```json
/// {"keys": [
///   {"keyId": "TEAMSBX001", "teamId": "TEAM000001", "file": "AuthKey_TEAMSBX001.p8",
///    "scope": "team", "environments": ["sandbox"]},
///   {"keyId": "TOPICA0001", "teamId": "TEAM000001", "file": "AuthKey_TOPICA0001.p8",
///    "scope": "topics", "topics": ["com.example.app"], "environments": ["sandbox", "production"],
///    "relatedKeyId": "TOPICB0001"}
/// ]}
/// ```
///
/// `file` (relative to the manifest's folder) is a `.p8` or a public-key PEM; `publicKey`
/// (PEM text) may stand in for it. `scope` is `team` or `topics`; `topics` is required with
/// `topics`. `environments` holds `sandbox` (alias `development`) and/or `production`.
/// Other members (such as `comment`) are ignored.
public enum KeyManifest {
    private struct Document: Decodable {
        let keys: [Entry]
    }

    private struct Entry: Decodable {
        let keyID: String
        let teamID: String
        let file: String?
        let publicKey: String?
        let scope: String
        let topics: [String]?
        let environments: [String]
        let relatedKeyID: String?

        /// The manifest's keys: `keyId`, `teamId`, `relatedKeyId` in the file.
        private enum CodingKeys: String, CodingKey {
            case file, publicKey, scope, topics, environments
            case keyID = "keyId"
            case teamID = "teamId"
            case relatedKeyID = "relatedKeyId"
        }
    }

    /// The keys listed in the manifest at `path`.
    public static func load(path: String) throws -> [ProviderKey] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthMaterialError("\(path): cannot read the key manifest")
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw AuthMaterialError("\(path): not a key manifest: \(error)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        return try document.keys.enumerated().map { index, entry in
            try key(entry, at: "\(path): keys[\(index)]", folder: folder)
        }
    }

    private static func key(_ entry: Entry, at context: String, folder: String) throws -> ProviderKey {
        let publicKey: ES256PublicKey
        switch (entry.file, entry.publicKey) {
        case (let file?, nil):
            let path = file.hasPrefix("/") ? file : (folder as NSString).appendingPathComponent(file)
            publicKey = try ES256PublicKey(contentsOfFile: path)
        case (nil, let pem?):
            publicKey = try ES256PublicKey(pem: pem, source: "\(context).publicKey")
        default:
            throw AuthMaterialError("\(context): give exactly one of \"file\" and \"publicKey\"")
        }
        let scope: KeyScope
        switch (entry.scope, entry.topics) {
        case ("team", nil): scope = .team
        case ("topics", let topics?) where !topics.isEmpty: scope = .topics(Set(topics))
        case ("team", _): throw AuthMaterialError("\(context): a team-scoped key lists no \"topics\"")
        case ("topics", _): throw AuthMaterialError("\(context): scope \"topics\" needs a non-empty \"topics\" list")
        default: throw AuthMaterialError("\(context): scope must be \"team\" or \"topics\", not \"\(entry.scope)\"")
        }
        var environments = Set<APNsEnvironment>()
        for name in entry.environments {
            guard let environment = name == "development" ? .sandbox : APNsEnvironment(rawValue: name) else {
                throw AuthMaterialError("\(context): unknown environment \"\(name)\" (sandbox, production)")
            }
            environments.insert(environment)
        }
        guard !environments.isEmpty else { throw AuthMaterialError("\(context): \"environments\" is empty") }
        return ProviderKey(
            keyID: entry.keyID, teamID: entry.teamID, publicKey: publicKey, scope: scope,
            environments: environments, relatedKeyID: entry.relatedKeyID)
    }
}
