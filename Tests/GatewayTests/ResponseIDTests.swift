import XCTest

@testable import APNsCore
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// Generated IDs reach the response as bits (`UUIDHeaderFields`) and are spelled by the
/// transport: the fields sent, in order, are exactly those of the same response with the IDs as
/// text.
final class ResponseIDTests: XCTestCase {
    private let generator = UUIDGenerator()

    func testBitsAnswerTheSameFieldsInTheSameOrderAsText() {
        let apnsBits = generator.nextBits(uppercase: true), uniqueBits = generator.nextBits(uppercase: false)
        let echoed = "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"
        let apnsIDs: [ResponseID] = [.uuid(apnsBits), .text(apnsBits.text), .text(echoed)]
        let uniqueIDs: [ResponseID?] = [nil, .uuid(uniqueBits), .text(uniqueBits.text)]
        let answers: [(Reason?, Int64?, Int?)] = [
            (nil, nil, nil), (.badDeviceToken, nil, nil), (.unregistered, 1_714_564_800_123, nil),
            (.badDeviceToken, nil, 500),
        ]
        for apnsID in apnsIDs {
            for uniqueID in uniqueIDs {
                for (reason, timestamp, status) in answers {
                    let name =
                        "\(apnsID) \(String(describing: uniqueID)) \(String(describing: reason)) \(String(describing: status))"
                    let fast = ResponseBuilder.response(
                        reason: reason, timestamp: timestamp, apnsID: apnsID, uniqueID: uniqueID,
                        status: status)
                    let text = ResponseBuilder.response(
                        reason: reason, timestamp: timestamp, apnsID: apnsID.text,
                        uniqueID: uniqueID?.text, status: status)
                    XCTAssertTrue(text.uuidHeaders.isEmpty, name)
                    XCTAssertEqual(fast.allHeaders, text.headers, name)
                    XCTAssertEqual(fast.status, text.status, name)
                    XCTAssertEqual(fast.body, text.body, name)
                    if case .uuid = apnsID, reason == nil,
                        uniqueID.map({ if case .uuid = $0 { true } else { false } }) ?? true
                    {
                        XCTAssertTrue(
                            fast.headers.isEmpty, "\(name): an accepted push with generated IDs builds no header list")
                    }
                }
            }
        }
    }

    func testUUIDHeaderFieldsHoldTwoInOrderAndSpellAsTheGenerator() {
        var fields = UUIDHeaderFields()
        XCTAssertTrue(fields.isEmpty)
        XCTAssertEqual(fields.fields, [])
        let first = generator.nextBits(uppercase: true), second = generator.nextBits(uppercase: false)
        fields.append(first.field("apns-id"))
        fields.append(second.field("apns-unique-id"))
        XCTAssertEqual(fields.count, 2)
        XCTAssertEqual(
            fields.fields,
            [
                HeaderField(name: "apns-id", value: first.text),
                HeaderField(name: "apns-unique-id", value: second.text),
            ])
        XCTAssertEqual(fields[0].value, first.text)
        var other = UUIDHeaderFields()
        other.append(first.field("apns-id"))
        XCTAssertNotEqual(other, fields)
        other.append(second.field("apns-unique-id"))
        XCTAssertEqual(other, fields)
        var renamed = UUIDHeaderFields()
        renamed.append(first.field("apns-id"))
        renamed.append(second.field("apns-other"))
        XCTAssertNotEqual(renamed, fields, "names compare by bytes")
    }

    /// The gateway's own IDs: the response's apns-id and apns-unique-id are the record's, for the
    /// first push (encoded in full) and its repeats (the record rewritten from the previous one).
    func testGeneratedIDsAnsweredAreTheRecordedOnes() throws {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), options: ValidationOptions())
        let memo = PreviousRequest()
        let connection = PushOrigin(id: 3, listener: "sandbox", environment: .sandbox, peer: "127.0.0.1:1")
        var seen = Set<String>()
        for stream in stride(from: Int32(1), through: 9, by: 2) {
            let outcome = gateway.handle(
                ValidationFixture.request(), connection: connection, streamID: stream, memo: memo)
            XCTAssertTrue(outcome.response.headers.isEmpty)
            let headers = outcome.response.allHeaders
            XCTAssertEqual(headers.map(\.name), ["apns-id", "apns-unique-id"])
            let record = try XCTUnwrap(gateway.store.record(seq: outcome.seq))
            XCTAssertEqual(record.apnsID, headers[0].value)
            XCTAssertEqual(record.uniqueID, headers[1].value)
            XCTAssertTrue(HeaderRules.isCanonicalUUID(record.apnsID) && record.apnsID == record.apnsID.uppercased())
            XCTAssertEqual(record.uniqueID, record.uniqueID?.lowercased())
            seen.insert(record.apnsID)
        }
        XCTAssertEqual(seen.count, 5)
        XCTAssertEqual(memo.recordHits, 4)
    }
}
