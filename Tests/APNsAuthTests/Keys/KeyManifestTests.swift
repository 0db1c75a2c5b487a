import APNsAuth
import APNsCore
import Foundation
import XCTest

final class KeyManifestTests: XCTestCase {
    func testFixtureManifest() {
        let keys = AuthFixtures.keys
        XCTAssertEqual(keys.keys.count, 7)
        let rows: [(id: String, team: String, scope: KeyScope, environments: Set<APNsEnvironment>, related: String?)] =
            [
                ("TEAMSBX001", "TEAM000001", .team, [.sandbox], nil),
                ("TEAMPRD001", "TEAM000001", .team, [.production], nil),
                ("TEAMUNI001", "TEAM000001", .team, [.sandbox, .production], nil),
                ("TOPICA0001", "TEAM000001", .topics(["com.example.app"]), [.sandbox, .production], "TOPICB0001"),
                (
                    "TOPICB0001", "TEAM000001", .topics(["com.example.app", "com.example.other"]),
                    [.sandbox, .production], "TOPICA0001"
                ),
                ("TOPICC0001", "TEAM000001", .topics(["com.example.third"]), [.sandbox, .production], nil),
                ("OTHERTEAM1", "TEAM000002", .team, [.sandbox, .production], nil),
            ]
        for row in rows {
            guard let key = keys[row.id] else {
                XCTFail("\(row.id) missing")
                continue
            }
            XCTAssertEqual(key.keyID.count, 10, row.id)  // Apple's key IDs are 10 characters
            XCTAssertEqual(key.teamID, row.team, row.id)
            XCTAssertEqual(key.scope, row.scope, row.id)
            XCTAssertEqual(key.environments, row.environments, row.id)
            XCTAssertEqual(key.relatedKeyID, row.related, row.id)
        }
        XCTAssertNil(keys["UNLISTED01"])
        XCTAssertNil(KeyStore.empty["TEAMUNI001"])
    }

    func testInvalidManifests() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try String(contentsOfFile: AuthFixtures.path("AuthKey_TEAMUNI001.pub.pem"), encoding: .utf8)
        let pemJSON = String(
            data: try JSONSerialization.data(withJSONObject: [pem], options: [.fragmentsAllowed]),
            encoding: .utf8)!.dropFirst().dropLast()
        let entry = #""keyId":"K","teamId":"T","#
        let rows: [(String, String?)] = [
            (#"{"keys":[{\#(entry)"publicKey":\#(pemJSON),"scope":"team","environments":["development"]}]}"#, nil),
            (
                #"{"keys":[{\#(entry)"file":"\#(AuthFixtures.path("AuthKey_TEAMUNI001.p8"))","scope":"team","environments":["production"]}]}"#,
                nil
            ),
            ("not json", "not a key manifest"),
            (#"{"keys":[{\#(entry)"scope":"team","environments":["sandbox"]}]}"#, "exactly one of"),
            (
                #"{"keys":[{\#(entry)"publicKey":\#(pemJSON),"scope":"app","environments":["sandbox"]}]}"#,
                "scope must be"
            ),
            (
                #"{"keys":[{\#(entry)"publicKey":\#(pemJSON),"scope":"topics","environments":["sandbox"]}]}"#,
                "non-empty"
            ),
            (
                #"{"keys":[{\#(entry)"publicKey":\#(pemJSON),"scope":"team","environments":["staging"]}]}"#,
                "unknown environment"
            ),
            (#"{"keys":[{\#(entry)"publicKey":\#(pemJSON),"scope":"team","environments":[]}]}"#, "is empty"),
            (#"{"keys":[{\#(entry)"file":"missing.p8","scope":"team","environments":["sandbox"]}]}"#, "cannot read"),
        ]
        for (index, (json, error)) in rows.enumerated() {
            let path = directory.appendingPathComponent("keys\(index).json").path
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            do {
                let keys = try KeyManifest.load(path: path)
                XCTAssertNil(error, "row \(index) should fail with \(error ?? "")")
                XCTAssertEqual(keys.first?.keyID, "K")
            } catch {
                guard let expected = rows[index].1 else {
                    XCTFail("row \(index): \(error)")
                    continue
                }
                XCTAssertTrue("\(error)".contains(expected), "row \(index): \(error)")
            }
        }
    }

    func testKeyRules() {
        let a = AuthFixtures.keys["TOPICA0001"]!, b = AuthFixtures.keys["TOPICB0001"]!,
            c = AuthFixtures.keys["TOPICC0001"]!
        let team = AuthFixtures.keys["TEAMUNI001"]!, other = AuthFixtures.keys["OTHERTEAM1"]!
        XCTAssertTrue(a.isRelated(to: b))
        XCTAssertTrue(b.isRelated(to: a))
        XCTAssertFalse(a.isRelated(to: c))
        XCTAssertFalse(a.isRelated(to: team))
        XCTAssertFalse(team.isRelated(to: other))
        XCTAssertTrue(team.isRelated(to: AuthFixtures.keys["TEAMSBX001"]!))
        XCTAssertTrue(c.isRelated(to: c))
        XCTAssertTrue(a.allows(topic: "com.example.app.voip-ptt"))
        XCTAssertTrue(a.allows(topic: "com.example.app.pushkit.fileprovider"))
        XCTAssertFalse(a.allows(topic: "com.example.app.voip.voip"))
        XCTAssertFalse(a.allows(topic: ".voip"))
        XCTAssertTrue(team.allows(topic: "anything"))
    }
}
