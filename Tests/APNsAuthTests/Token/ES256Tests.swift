import APNsAuth
import Foundation
import Synchronization
import XCTest

final class ES256Tests: XCTestCase {
    private let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0".utf8)

    private func publicKey(_ keyID: String) -> ES256PublicKey { AuthFixtures.keys[keyID]!.publicKey }

    func testRawAndDERSignaturesVerify() throws {
        let raw = try XCTUnwrap(ES256.sign(message: message, key: AuthFixtures.privateKey("TEAMUNI001")))
        XCTAssertEqual(raw.count, 64)
        let der = try XCTUnwrap(ES256.der(fromRaw: raw))
        XCTAssertEqual(der.first, 0x30)
        XCTAssertEqual(ES256.raw(fromDER: der), raw)
        let key = publicKey("TEAMUNI001")
        XCTAssertTrue(ES256.verify(signature: raw, message: message, key: key))
        XCTAssertTrue(ES256.verify(signature: der, message: message, key: key))
    }

    func testFailures() throws {
        let raw = try XCTUnwrap(ES256.sign(message: message, key: AuthFixtures.privateKey("TEAMUNI001")))
        let key = publicKey("TEAMUNI001")
        var tampered = message
        tampered[tampered.count - 1] ^= 1
        var flipped = raw
        flipped[10] ^= 0x80
        let rows: [(String, [UInt8], [UInt8], ES256PublicKey)] = [
            ("tampered message", raw, tampered, key),
            ("flipped signature bit", flipped, message, key),
            ("another key", raw, message, publicKey("TEAMSBX001")),
            ("empty signature", [], message, key),
            ("63 bytes", Array(raw.prefix(63)), message, key),
            ("garbage DER", [0x30, 0x03, 0x02, 0x01, 0x00], message, key),
            ("zero r and s", [UInt8](repeating: 0, count: 64), message, key),
        ]
        for (name, signature, signed, verifyingKey) in rows {
            XCTAssertFalse(ES256.verify(signature: signature, message: signed, key: verifyingKey), name)
        }
        XCTAssertNil(ES256.der(fromRaw: Array(raw.prefix(63))))
        XCTAssertNil(ES256.raw(fromDER: [1, 2, 3]))
    }

    /// A DER signature made by the openssl CLI (as Java's SHA256withECDSA, i.e. pushy, makes
    /// them) verifies.
    func testOpenSSLCommandLineDERSignatureVerifies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input").path
        let output = directory.appendingPathComponent("signature").path
        try Data(message).write(to: URL(fileURLWithPath: input))
        let result = try AuthFixtures.run(
            "openssl",
            [
                "dgst", "-sha256", "-sign", AuthFixtures.path("AuthKey_TOPICA0001.p8"),
                "-out", output, input,
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let der = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        XCTAssertEqual(der.first, 0x30)
        XCTAssertTrue(ES256.verify(signature: der, message: message, key: publicKey("TOPICA0001")))
        XCTAssertFalse(ES256.verify(signature: der, message: message + [0], key: publicKey("TOPICA0001")))
    }

    /// One key verifies on many threads at once (the gateway shares keys across workers).
    func testConcurrentVerification() throws {
        let raw = try XCTUnwrap(ES256.sign(message: message, key: AuthFixtures.privateKey("TEAMUNI001")))
        let key = publicKey("TEAMUNI001"), other = publicKey("TEAMSBX001")
        let message = self.message
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for round in 0..<40 {
                let expected = round % 2 == 0
                if ES256.verify(signature: raw, message: message, key: expected ? key : other) != expected {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }

    func testKeyLoading() throws {
        // A .p8 and the PEM public key made from it are the same key.
        let fromP8 = try ES256PublicKey(contentsOfFile: AuthFixtures.path("AuthKey_TEAMUNI001.p8"))
        let fromPEM = try ES256PublicKey(contentsOfFile: AuthFixtures.path("AuthKey_TEAMUNI001.pub.pem"))
        XCTAssertEqual(fromP8, fromPEM)
        XCTAssertEqual(try AuthFixtures.privateKey("TEAMUNI001").publicKey(), fromPEM)
        XCTAssertNotEqual(fromP8, publicKey("TEAMSBX001"))
        // A private key cannot be loaded from a public-key PEM.
        XCTAssertThrowsError(try ES256PrivateKey(contentsOfFile: AuthFixtures.path("AuthKey_TEAMUNI001.pub.pem")))
        XCTAssertThrowsError(try ES256PublicKey(pem: "not a key"))
        XCTAssertThrowsError(try ES256PublicKey(contentsOfFile: "/nonexistent/AuthKey.p8"))
    }

    /// ES256 needs P-256: P-384 and RSA keys are refused.
    func testOtherCurvesAndAlgorithmsRefused() throws {
        for arguments in [
            ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
            ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
        ] {
            let result = try AuthFixtures.run("openssl", ["genpkey"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertThrowsError(try ES256PublicKey(pem: result.stdout)) { error in
                XCTAssertTrue("\(error)".contains("P-256"), "\(error)")
            }
            XCTAssertThrowsError(try ES256PrivateKey(pem: result.stdout))
        }
    }

    func testSignerOutputShape() throws {
        let signer = ProviderTokenSigner(
            key: AuthFixtures.privateKey("TOPICB0001"), keyID: "TOPICB0001", teamID: "TEAM000001")
        let authorization = try signer.authorization(issuedAt: 1_700_000_000)
        XCTAssertTrue(authorization.hasPrefix("bearer "))
        let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        func json(_ part: Substring) throws -> [String: Any] {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            let data = try XCTUnwrap(Data(base64Encoded: text))
            return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let header = try json(parts[0]), claims = try json(parts[1])
        XCTAssertEqual(header["alg"] as? String, "ES256")
        XCTAssertEqual(header["kid"] as? String, "TOPICB0001")
        XCTAssertEqual(header.count, 2)
        XCTAssertEqual(claims["iss"] as? String, "TEAM000001")
        XCTAssertEqual((claims["iat"] as? NSNumber)?.int64Value, 1_700_000_000)
        XCTAssertEqual(claims.count, 2)
        XCTAssertFalse(parts[2].contains("="))
        let token = try ProviderTokenParser.parse(authorization: authorization).get()
        XCTAssertEqual(token.signature.count, 64)  // JWS raw r‖s
        XCTAssertTrue(
            ES256.verify(signature: token.signature, message: token.signingInput, key: publicKey("TOPICB0001")))
    }
}
