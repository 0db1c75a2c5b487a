import APNsAuth
import APNsCore
import Foundation
import XCTest

/// Tokens minted by other implementations verify with ours: PyJWT (raw r‖s, as most senders)
/// and Python `cryptography` directly (DER, as Java/pushy). Needs `pip install pyjwt
/// cryptography` (tests/live/requirements.txt); a missing package FAILS the test, by design.
final class PyJWTInteropTests: XCTestCase {
    private let script = """
        import sys, time, json, base64
        try:
            import jwt
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.asymmetric import ec
        except ImportError as error:
            print("MISSING: %s" % error, file=sys.stderr)
            sys.exit(3)
        path, kid, iss, iat, mode = sys.argv[1:6]
        pem = open(path, "rb").read()
        if mode == "pyjwt":
            print(jwt.encode({"iss": iss, "iat": int(iat)}, pem, algorithm="ES256", headers={"kid": kid}))
        else:
            b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
            key = serialization.load_pem_private_key(pem, password=None)
            signing_input = b64(json.dumps({"alg": "ES256", "kid": kid}).encode()) + "." + \\
                b64(json.dumps({"iss": iss, "iat": float(iat)}).encode())
            print(signing_input + "." + b64(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))))
        """

    private func mint(_ mode: String, keyID: String, iat: Int) throws -> String {
        let result = try AuthFixtures.run(
            "python3",
            [
                "-c", script, AuthFixtures.path("AuthKey_\(keyID).p8"), keyID,
                AuthFixtures.team1, String(iat), mode,
            ])
        if result.status == 3 || result.stderr.contains("MISSING") {
            XCTFail(
                """
                PyJWT interop needs the Python packages pyjwt and cryptography: \
                python3 -m pip install -r tests/live/requirements.txt (\(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))
                """)
        }
        XCTAssertEqual(result.status, 0, "python3 failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func authenticate(_ jwt: String, now: Double) -> AuthOutcome {
        var state = TokenConnectionState()
        return TokenAuthenticator.authenticate(
            authorization: "bearer " + jwt, topic: "com.example.app", environment: .sandbox,
            mode: .strict, nowSeconds: now, keys: AuthFixtures.keys, state: &state)
    }

    func testPyJWTTokenVerifies() throws {
        let iat = 1_700_000_000
        let jwt = try mint("pyjwt", keyID: "TOPICA0001", iat: iat)
        guard !jwt.isEmpty else { return }
        let token = try ProviderTokenParser.parse(jwt: Substring(jwt)).get()
        XCTAssertEqual(token.signature.count, 64, "PyJWT signs with JWS raw r‖s")
        let outcome = authenticate(jwt, now: Double(iat) + 30)
        XCTAssertEqual(
            outcome,
            AuthOutcome(
                reason: nil,
                identity: AuthIdentity(
                    kind: .token, keyID: "TOPICA0001",
                    teamID: AuthFixtures.team1,
                    issuedAt: Double(iat), verdict: "verified")))
        // The same token, tampered, fails.
        var parts = jwt.split(separator: ".").map(String.init)
        parts[1] = AuthFixtures.base64url(Array(#"{"iss":"TEAM000001","iat":1700000001}"#.utf8))
        XCTAssertEqual(authenticate(parts.joined(separator: "."), now: Double(iat) + 30).reason, .invalidProviderToken)
    }

    func testCryptographyDERTokenVerifies() throws {
        let iat = 1_700_000_000
        let jwt = try mint("der", keyID: "TEAMUNI001", iat: iat)
        guard !jwt.isEmpty else { return }
        let token = try ProviderTokenParser.parse(jwt: Substring(jwt)).get()
        XCTAssertEqual(token.signature.first, 0x30, "cryptography signs in DER")
        XCTAssertEqual(token.issuedAt, Double(iat))  // sent as a float, with JSON spaces
        XCTAssertEqual(authenticate(jwt, now: Double(iat) + 30).identity.verdict, "verified")
    }
}
