import APNsAuth
import APNsCore
import Foundation
import TestSupport
import XCTest

/// The committed TEST-ONLY material in `fixtures/auth/` (made by `tls/generate-auth-fixtures.sh`)
/// and helpers that mint tokens from it.
enum AuthFixtures {
    /// A fixed "now" for table rows, seconds since the Unix epoch.
    static let now: Double = 1_800_000_000
    static let team1 = "TEAM000001"
    static let team2 = "TEAM000002"

    /// `fixtures/auth/` in this repository.
    static let directory = RepositoryPaths.path("fixtures/auth")

    static func path(_ name: String) -> String { directory + "/" + name }

    /// Every key in `keys.json`.
    static let keys: KeyStore = {
        do { return try KeyStore(manifestAt: path("keys.json")) } catch { fatalError("keys.json: \(error)") }
    }()

    /// A store with only the listed keys.
    static func store(_ ids: String...) -> KeyStore {
        KeyStore(ids.map { keys[$0]! })
    }

    static func privateKey(_ keyID: String) -> ES256PrivateKey {
        let file = keyID == "UNLISTED01" ? "unlisted/AuthKey_UNLISTED01.p8" : "AuthKey_\(keyID).p8"
        do { return try ES256PrivateKey(contentsOfFile: path(file)) } catch { fatalError("\(file): \(error)") }
    }

    /// A token from `ProviderTokenSigner` (raw r‖s signature).
    static func token(_ keyID: String, team: String = team1, iat: Double = now - 10) -> String {
        let signer = ProviderTokenSigner(key: privateKey(keyID), keyID: keyID, teamID: team)
        return try! signer.token(issuedAt: Int64(iat))
    }

    static func bearer(_ keyID: String, team: String = team1, iat: Double = now - 10) -> String {
        "bearer " + token(keyID, team: team, iat: iat)
    }

    /// A token with exactly this header and claims JSON text, signed by `signingKeyID`'s key,
    /// with a raw (default) or DER signature.
    static func crafted(header: String, claims: String, signedBy signingKeyID: String, der: Bool = false) -> String {
        let input = base64url(Array(header.utf8)) + "." + base64url(Array(claims.utf8))
        let raw = ES256.sign(message: Array(input.utf8), key: privateKey(signingKeyID))!
        return input + "." + base64url(der ? ES256.der(fromRaw: raw)! : raw)
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func certificate(_ name: String) -> CertificateIdentity {
        do { return try CertificateIdentity(contentsOfFile: path("\(name).pem")) } catch {
            fatalError("\(name): \(error)")
        }
    }

    /// Runs a program and returns its standard output; fails the test on a non-zero exit.
    static func run(
        _ executable: String, _ arguments: [String], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)
        )
    }
}
