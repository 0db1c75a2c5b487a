import APNsAuth
import APNsCore
import XCTest

final class ProviderTokenParserTests: XCTestCase {
    private let kid = "TEAMUNI001"
    private let team = AuthFixtures.team1

    func testBearerExtraction() {
        let rows: [(String, Result<Substring, ProviderTokenError>)] = [
            ("bearer a.b.c", .success("a.b.c")),
            ("Bearer a.b.c", .success("a.b.c")),  // case-insensitive scheme (decision)
            ("BEARER a.b.c", .success("a.b.c")),
            ("  bearer \t a.b.c  ", .success("a.b.c")),
            ("", .failure(.missing)),
            ("   ", .failure(.missing)),
            ("bearer", .failure(.missing)),
            ("bearer   ", .failure(.missing)),
            ("bearera.b.c", .failure(.notBearer)),
            ("Basic dXNlcjpwYXNz", .failure(.notBearer)),
            ("a.b.c", .failure(.notBearer)),
            ("bear", .failure(.notBearer)),
        ]
        for (value, expected) in rows {
            XCTAssertEqual(ProviderTokenParser.bearerToken(in: value), expected, "authorization \"\(value)\"")
        }
    }

    func testParsesSignerOutput() throws {
        let token = try ProviderTokenParser.parse(authorization: AuthFixtures.bearer(kid, iat: 1_700_000_123)).get()
        XCTAssertEqual(token.keyID, kid)
        XCTAssertEqual(token.teamID, team)
        XCTAssertEqual(token.issuedAt, 1_700_000_123)
        XCTAssertEqual(token.signature.count, 64)
    }

    /// `iat` forms (docs/apns-behaviour.md §9): integer, float and numeric string accepted.
    func testIssuedAtForms() {
        let rows: [(claims: String, iat: Double?)] = [
            (#"{"iss":"T","iat":1700000000}"#, 1_700_000_000),
            (#"{"iss":"T","iat":1700000000.75}"#, 1_700_000_000.75),
            (#"{"iss":"T","iat":"1700000000"}"#, 1_700_000_000),
            (#"{"iss":"T","iat":"1700000000.5"}"#, 1_700_000_000.5),
            (#"{ "iss" : "T" , "iat" : 1700000000 , "extra": [1, {"x": null}] }"#, 1_700_000_000),
            (#"{"iss":"T"}"#, nil),
            (#"{"iss":"T","iat":null}"#, nil),
            (#"{"iss":"T","iat":true}"#, nil),
            (#"{"iss":"T","iat":"abc"}"#, nil),
            (#"{"iss":"T","iat":""}"#, nil),
            (#"{"iss":"T","iat":"1e9"}"#, nil),
            (#"{"iss":"T","iat":"0x10"}"#, nil),
            (#"{"iss":"T","iat":"-5"}"#, nil),
            (#"{"iss":"T","iat":" 1700000000"}"#, nil),
            (#"{"iss":"T","iat":"nan"}"#, nil),
            (#"{"iss":"T","iat":"1."}"#, nil),
            (#"{"iss":"T","iat":[1]}"#, nil),
        ]
        for row in rows {
            let jwt = AuthFixtures.crafted(header: #"{"alg":"ES256","kid":"K"}"#, claims: row.claims, signedBy: kid)
            let result = ProviderTokenParser.parse(jwt: Substring(jwt))
            switch (result, row.iat) {
            case (.success(let token), let iat?): XCTAssertEqual(token.issuedAt, iat, row.claims)
            case (.failure(let error), nil): XCTAssertEqual(error.reason, .invalidProviderToken, row.claims)
            default: XCTFail("\(row.claims): got \(result)")
            }
        }
    }

    /// Header and claims rules (docs/apns-behaviour.md §4): alg ES256, kid and iss present; extras ignored.
    func testHeaderAndClaimsRules() {
        let claims = #"{"iss":"T","iat":1700000000}"#
        let rows: [(header: String, claims: String, valid: Bool)] = [
            (#"{"alg":"ES256","kid":"K"}"#, claims, true),
            (#"{"typ":"JWT","alg":"ES256","kid":"K","x5u":"ignored"}"#, claims, true),
            (#"{"alg":"HS256","kid":"K"}"#, claims, false),
            (#"{"alg":"es256","kid":"K"}"#, claims, false),
            (#"{"alg":"none","kid":"K"}"#, claims, false),
            (#"{"kid":"K"}"#, claims, false),
            (#"{"alg":"ES256"}"#, claims, false),
            (#"{"alg":"ES256","kid":""}"#, claims, false),
            (#"{"alg":"ES256","kid":7}"#, claims, false),
            (#"["ES256"]"#, claims, false),
            ("not json", claims, false),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iat":1700000000}"#, false),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":"","iat":1700000000}"#, false),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":5,"iat":1700000000}"#, false),
            (#"{"alg":"ES256","kid":"K"}"#, "null", false),
        ]
        for row in rows {
            let jwt = AuthFixtures.crafted(header: row.header, claims: row.claims, signedBy: kid)
            let result = ProviderTokenParser.parse(jwt: Substring(jwt))
            if row.valid {
                XCTAssertNotNil(try? result.get(), "\(row.header) \(row.claims)")
            } else {
                guard case .failure(.malformed) = result else {
                    return XCTFail("\(row.header) \(row.claims): \(result)")
                }
            }
        }
    }

    func testStructureRules() {
        let good = AuthFixtures.token(kid)
        let parts = good.split(separator: ".").map(String.init)
        let rows: [(String, Bool)] = [
            (good, true),
            (good + "==", true),  // padding is optional
            (good + "=x", false),
            (parts[0] + "." + parts[1], false),
            (parts[0] + "." + parts[1] + ".", false),  // empty signature
            (good + ".extra", false),
            (parts[0] + "." + parts[1] + ".+" + parts[2].dropFirst(), false),  // standard base64 refused
            ("***." + parts[1] + "." + parts[2], false),
            ("", false),
            ("...", false),
        ]
        for (jwt, valid) in rows {
            let result = ProviderTokenParser.parse(jwt: Substring(jwt))
            XCTAssertEqual((try? result.get()) != nil, valid, "\(jwt): \(result)")
        }
    }

    func testErrorReasons() {
        XCTAssertEqual(ProviderTokenError.missing.reason, .missingProviderToken)
        XCTAssertEqual(ProviderTokenError.notBearer.reason, .missingProviderToken)
        XCTAssertEqual(ProviderTokenError.malformed("x").reason, .invalidProviderToken)
        XCTAssertEqual(ProviderTokenParser.parse(authorization: nil), .failure(.missing))
    }
}
