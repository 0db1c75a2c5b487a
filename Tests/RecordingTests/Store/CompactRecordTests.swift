import XCTest

@testable import APNsCore
@testable import Recording

/// The store's compact form gives back every field byte for byte, and filters read it as they
/// read the decoded record.
final class CompactRecordTests: XCTestCase {
    // MARK: the table of records

    private static let uuidUpper = "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E"
    private static let uuidLower = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    private static let token64 = String(repeating: "ab", count: 32)

    private static func record(
        path: String = "/3/device/\(token64)", token: String? = token64,
        headers: [HeaderField] = [
            HeaderField(name: "apns-topic", value: "com.example.app"),
            HeaderField(name: "apns-push-type", value: "alert"),
        ],
        verdict: ValidationResult? = nil, apnsID: String = uuidUpper, uniqueID: String? = uuidLower,
        payload: [UInt8] = Array(#"{"aps":{"alert":"hello"}}"#.utf8), payloadBytes: Int? = nil,
        status: Int = 200, reason: Reason? = nil, environment: APNsEnvironment = .sandbox,
        listener: String = "default", method: String = "POST", receivedAt: Double = 1_796_028_543.123,
        connectionID: UInt64 = 4, streamID: Int32 = 1,
        identity: CredentialIdentity? = CredentialIdentity(kind: "none", verdict: "no-token"),
        fault: FaultRecord? = nil
    ) -> DeliveryRecord {
        let verdict =
            verdict
            ?? ValidationResult(
                deviceToken: token, topic: "com.example.app", pushTypeSent: "alert",
                pushType: .alert, priority: 10)
        return DeliveryRecord(
            receivedAt: receivedAt, environment: environment, listener: listener,
            connectionID: connectionID, streamID: streamID, method: method, path: path,
            verdict: verdict, apnsID: apnsID, uniqueID: uniqueID, headers: headers,
            payload: payload, payloadBytes: payloadBytes, status: status, reason: reason,
            identity: identity, fault: fault)
    }

    /// Every shape a record takes: plain pushes, every verdict field set and unset, unicode,
    /// odd headers and paths, a cut huge payload, identities, faults, every reason and push type,
    /// extreme numbers.
    private static var table: [(String, DeliveryRecord)] {
        var rows: [(String, DeliveryRecord)] = []
        rows.append(("typical push", record()))
        rows.append(
            (
                "echoed lowercase apns-id, collapse id, expiration, 410 with timestamp",
                record(
                    headers: [
                        HeaderField(name: "apns-id", value: uuidLower),
                        HeaderField(name: "apns-collapse-id", value: "group-1"),
                        HeaderField(name: "apns-expiration", value: "1796028600"),
                        HeaderField(name: "apns-priority", value: "5"),
                        HeaderField(name: "apns-topic", value: "com.example.app"),
                    ],
                    verdict: ValidationResult(
                        reason: .unregistered, timestamp: 1_700_000_000_000, deviceToken: token64,
                        topic: "com.example.app",
                        pushType: .alert, priority: 5, expiration: 1_796_028_600, collapseID: "group-1",
                        apnsID: uuidLower),
                    apnsID: uuidLower, uniqueID: nil, status: 410, reason: .unregistered, environment: .production)
            ))
        rows.append(
            (
                "unicode everywhere",
                record(
                    path: "/3/device/ünï", token: "ünï",
                    headers: [
                        HeaderField(name: "x-émoji-🙂", value: "🚀 lift-off"),
                        HeaderField(name: "apns-topic", value: "com.exämple.app"),
                    ],
                    verdict: ValidationResult(
                        reason: .badDeviceToken, deviceToken: "ünï", topic: "com.exämple.app", pushType: .alert,
                        lints: ["aps.alert is 🙂"], payloadError: "bad byte ✗"),
                    payload: Array(#"{"aps":{"alert":"こんにちは 🙂"}}"#.utf8), status: 400, reason: .badDeviceToken,
                    listener: "écoute")
            ))
        rows.append(
            (
                "canonically equal but different bytes are not merged",
                record(
                    headers: [
                        HeaderField(name: "apns-topic", value: "caf\u{65}\u{301}"),
                        HeaderField(name: "apns-push-type", value: "alert"),
                        HeaderField(name: "apns-collapse-id", value: "\u{212B}"),
                    ],
                    verdict: ValidationResult(
                        deviceToken: token64, topic: "caf\u{e9}", pushTypeSent: "alert", pushType: .alert,
                        collapseID: "\u{c5}"))
            ))
        rows.append(
            (
                "odd headers",
                record(
                    headers: [
                        HeaderField(name: "", value: ""), HeaderField(name: "apns-topic", value: "a"),
                        HeaderField(name: "apns-topic", value: "b"),
                        HeaderField(name: "x-mixed-uuid", value: "6f1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E"),
                        HeaderField(name: "x-upper-hex", value: "DEADBEEF"),
                        HeaderField(name: "x-odd-hex", value: "abc"),
                        HeaderField(name: "x-nul", value: "a\u{0}b"),
                        HeaderField(name: "x-long", value: String(repeating: "v", count: 10_000)),
                        HeaderField(name: "authorization", value: "bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0"),
                        HeaderField(name: "apns-push-type", value: "Alert!"),
                        HeaderField(name: "content-length", value: "10"),
                    ],
                    verdict: ValidationResult(
                        reason: .duplicateHeaders, deviceToken: token64, topic: "b", pushTypeSent: "Alert!",
                        pushType: .alert, priority: nil),
                    status: 400, reason: .duplicateHeaders)
            ))
        rows.append(("uppercase token in the path", record(path: "/3/device/ABCDEF0123", token: "abcdef0123")))
        rows.append(
            (
                "empty token",
                record(
                    path: "/3/device/", token: nil,
                    verdict: ValidationResult(reason: .missingDeviceToken), status: 400, reason: .missingDeviceToken)
            ))
        rows.append(
            (
                "not a token path",
                record(
                    path: "/4/other?x=1", token: nil, verdict: ValidationResult(reason: .badPath),
                    status: 404, reason: .badPath)
            ))
        rows.append(
            (
                "empty path and GET",
                record(
                    path: "", token: nil, verdict: ValidationResult(reason: .methodNotAllowed),
                    status: 405, reason: .methodNotAllowed, method: "GET")
            ))
        rows.append(("non-hex token", record(path: "/3/device/xyz?q=1", token: "xyz?q=1")))
        rows.append(("odd-length hex token", record(path: "/3/device/abc", token: "abc")))
        rows.append(
            (
                "huge payload cut",
                record(
                    payload: [UInt8](repeating: 0x7B, count: 16_384), payloadBytes: 5_000_000,
                    status: 413, reason: .payloadTooLarge)
            ))
        rows.append(
            (
                "empty payload",
                record(
                    verdict: ValidationResult(reason: .payloadEmpty, deviceToken: token64), payload: [],
                    status: 400, reason: .payloadEmpty)
            ))
        rows.append(("binary payload", record(payload: [0xFF, 0x00, 0xC3, 0x28, 0x80])))
        rows.append(
            (
                "verified provider token",
                record(
                    headers: [HeaderField(name: "authorization", value: "bearer h.c")],
                    identity: CredentialIdentity(
                        kind: "token", keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
                        issuedAt: 1_700_000_000, verdict: "verified"))
            ))
        rows.append(
            (
                "rejected token without issued-at",
                record(
                    status: 403, reason: .invalidProviderToken,
                    identity: CredentialIdentity(kind: "token", keyID: "K", verdict: "rejected: bad signature"))
            ))
        rows.append(
            (
                "certificate with topics",
                record(
                    identity: CredentialIdentity(
                        kind: "certificate", subject: "CN=Apple Push Services: com.example.app,O=Ex",
                        topics: ["com.example.app", "com.example.app.voip"],
                        verdict: "certificate-authenticated"))
            ))
        rows.append(
            (
                "certificate with no topics",
                record(
                    identity: CredentialIdentity(kind: "certificate", subject: "", topics: [], verdict: "x"))
            ))
        rows.append(("no identity", record(identity: nil)))
        rows.append(
            (
                "fault answered instead",
                record(
                    status: 503, reason: .serviceUnavailable,
                    fault: FaultRecord(
                        ruleID: "f2", action: "respond",
                        description: "rule f2: respond 503 ServiceUnavailable"))
            ))
        rows.append(
            (
                "fault with no answer",
                record(
                    status: 0, reason: nil,
                    fault: FaultRecord(ruleID: "", action: "resetStream", description: ""))
            ))
        rows.append(
            (
                "inferred push type only",
                record(
                    verdict: ValidationResult(
                        deviceToken: token64, topic: "com.example.app", pushType: .background,
                        lints: ["one", "two", ""], payloadError: nil))
            ))
        rows.append(
            (
                "empty verdict",
                record(
                    token: nil, headers: [], verdict: ValidationResult(), apnsID: "", uniqueID: "",
                    identity: nil)
            ))
        rows.append(
            ("apns-id not a UUID", record(apnsID: "not-a-uuid", uniqueID: "12345678-1234-1234-1234-123456789012")))
        rows.append(
            (
                "extreme numbers",
                record(
                    verdict: ValidationResult(
                        reason: .badExpirationDate, timestamp: .min, deviceToken: token64, priority: .max,
                        expiration: .max),
                    payloadBytes: .max, status: -1, reason: .badExpirationDate, receivedAt: -1e300, connectionID: .max,
                    streamID: .min)
            ))
        rows.append(
            (
                "NaN time, negative numbers",
                record(
                    verdict: ValidationResult(timestamp: -1, priority: -10, expiration: .min), payloadBytes: -5,
                    status: 99_999,
                    receivedAt: .nan, streamID: .max)
            ))
        for reason in Reason.allCases {
            rows.append(
                (
                    "reason \(reason.rawValue)",
                    record(
                        verdict: ValidationResult(reason: reason, deviceToken: token64), status: reason.status,
                        reason: reason)
                ))
        }
        for pushType in PushType.allCases {
            rows.append(
                (
                    "push type \(pushType.rawValue)",
                    record(
                        headers: [HeaderField(name: "apns-push-type", value: pushType.rawValue)],
                        verdict: ValidationResult(
                            deviceToken: token64, pushTypeSent: pushType.rawValue, pushType: pushType))
                ))
        }
        return rows
    }

    // MARK: round trip

    func testEveryRecordShapeRoundTripsByteForByte() {
        for (name, original) in Self.table {
            let decoded = CompactRecord(original).decoded(seq: 77)
            var expected = original
            expected.seq = 77
            XCTAssertEqual(Self.fields(decoded), Self.fields(expected), name)
            XCTAssertEqual(decoded.receivedAt.bitPattern, original.receivedAt.bitPattern, name)
        }
    }

    // MARK: templates

    /// A record rewritten from a template (receive time, stream id, generated apns-id, unique id)
    /// is byte for byte the record encoded in full, for every shape of record and stream ids
    /// whose varints have another length than the model's.
    func testTemplateRewriteIsByteForByteTheFullEncoding() throws {
        let generator = UUIDGenerator()
        var templates = 0
        for (name, model) in Self.table {
            for generated in [true, false] {
                let (compact, landmarks) = CompactRecord.encoded(model)
                XCTAssertEqual(compact.bytes, CompactRecord(model).bytes, name)
                guard let template = CompactRecordTemplate(compact, landmarks: landmarks, apnsIDGenerated: generated)
                else {
                    XCTAssertTrue(
                        name.hasPrefix("apns-id not a UUID") || name.hasPrefix("empty verdict")
                            || (generated && name.hasPrefix("echoed")), "\(name): no template")
                    continue
                }
                templates += 1
                for stream: Int32 in [0, 1, -1, 63, 64, 8191, 8192, 1_048_576, .max, .min] {
                    var next = model
                    next.streamID = stream
                    next.receivedAt = model.receivedAt.isNaN ? 3.25 : model.receivedAt + 1.5
                    // A new ID in the letter case the model's was written in.
                    let upper = { (text: String) in text.uppercased() == text }
                    let apnsID = generated ? generator.nextBits(uppercase: upper(model.apnsID)) : nil
                    let uniqueID = model.uniqueID.map { generator.nextBits(uppercase: upper($0)) }
                    next.apnsID = apnsID?.text ?? model.apnsID
                    next.uniqueID = uniqueID?.text
                    for withBits in [false, true] {
                        let rebuilt = template.record(
                            from: compact, receivedAt: next.receivedAt, streamID: stream, apnsID: next.apnsID,
                            apnsIDBits: withBits ? apnsID : nil, uniqueID: next.uniqueID,
                            uniqueIDBits: withBits ? uniqueID : nil)
                        XCTAssertEqual(
                            rebuilt?.bytes, CompactRecord(next).bytes,
                            "\(name), generated \(generated), stream \(stream), bits \(withBits)")
                        // The same values stored as a delta of the model read back as the same bytes.
                        let apnsAnswer: ResponseID = (withBits ? apnsID : nil).map { .uuid($0) } ?? .text(next.apnsID)
                        let uniqueAnswer: ResponseID? =
                            (withBits ? uniqueID : nil).map { .uuid($0) } ?? next.uniqueID.map { .text($0) }
                        let rewrite = try XCTUnwrap(
                            template.rewrite(
                                receivedAt: next.receivedAt, streamID: stream,
                                apnsID: apnsAnswer, uniqueID: uniqueAnswer))
                        let stored = Self.storedRepeat(of: compact, template: template, rewrite)
                        XCTAssertTrue(stored.isRepeat)
                        XCTAssertEqual(stored.bytes, CompactRecord(next).bytes, "\(name), stream \(stream), as a delta")
                        XCTAssertEqual(stored.count, CompactRecord(next).count)
                        XCTAssertLessThanOrEqual(
                            stored.storedCount, 22 + 5 + 34, "a delta is at most its fixed part, a varint and two IDs")
                    }
                }
            }
        }
        XCTAssertGreaterThan(templates, Self.table.count, "most shapes make templates")
    }

    /// `rewrite` stored as a delta of `model` in a chunk of its own, between other bytes.
    static func storedRepeat(
        of model: CompactRecord, template: CompactRecordTemplate,
        _ rewrite: CompactRecordTemplate.Rewrite
    ) -> CompactRecord {
        let chunk = RecordChunk(capacity: 3 + template.deltaCount(rewrite) + 5)
        _ = chunk.claim(3)
        let offset = chunk.claim(template.deltaCount(rewrite))
        template.writeDelta(rewrite, to: chunk.base + offset)
        (chunk.base + chunk.claim(5)).initializeMemory(as: UInt8.self, repeating: 0xEE, count: 5)
        return CompactRecord(repeating: model, chunk: chunk, offset: offset, deltaCount: template.deltaCount(rewrite))
    }

    /// A replacement that would not be written as the model's was (another letter case, not a
    /// UUID, a unique id appearing or vanishing) gets no rewrite: the caller encodes in full.
    func testTemplateRefusesReplacementsOfAnotherForm() throws {
        let model = Self.record()
        let (compact, landmarks) = CompactRecord.encoded(model)
        let template = try XCTUnwrap(CompactRecordTemplate(compact, landmarks: landmarks, apnsIDGenerated: true))
        let upper = "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D", lower = Self.uuidLower
        XCTAssertNotNil(template.record(from: compact, receivedAt: 1, streamID: 1, apnsID: upper, uniqueID: lower))
        XCTAssertNil(
            template.record(from: compact, receivedAt: 1, streamID: 1, apnsID: lower, uniqueID: lower),
            "apns-id in lowercase")
        XCTAssertNil(
            template.record(from: compact, receivedAt: 1, streamID: 1, apnsID: upper, uniqueID: upper),
            "unique id in uppercase")
        XCTAssertNil(
            template.record(
                from: compact, receivedAt: 1, streamID: 1, apnsID: String(repeating: "x", count: 36), uniqueID: lower))
        XCTAssertNil(template.record(from: compact, receivedAt: 1, streamID: 1, apnsID: "short", uniqueID: lower))
        XCTAssertNil(
            template.record(from: compact, receivedAt: 1, streamID: 1, apnsID: upper, uniqueID: nil),
            "unique id vanished")
        let production = Self.record(uniqueID: nil)
        let (other, marks) = CompactRecord.encoded(production)
        let noUnique = try XCTUnwrap(CompactRecordTemplate(other, landmarks: marks, apnsIDGenerated: true))
        XCTAssertNil(
            noUnique.record(from: other, receivedAt: 1, streamID: 1, apnsID: upper, uniqueID: lower),
            "unique id appeared")
        XCTAssertNil(
            CompactRecordTemplate(compact, landmarks: landmarks, apnsIDGenerated: true)?
                .record(
                    from: compact, receivedAt: 1, streamID: 1, apnsID: "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4\u{212A}",
                    uniqueID: lower),
            "36 bytes needed, not 36 characters")
    }

    /// A generated ID given by its bits is stored as its text would be: a UUID without letters
    /// counts as uppercase, whatever case it was made in.
    func testGeneratedBitsAreWrittenAsTheirText() throws {
        let digitsOnly = UUIDGenerator.Bits(high: 0x1234_5678_9012_4345, low: 0x8123_4567_8901_2345, uppercase: false)
        let withLetter = UUIDGenerator.Bits(high: 0x1234_5678_9012_4345, low: 0x8123_4567_8901_234A, uppercase: false)
        XCTAssertFalse(digitsOnly.hasLetters)
        XCTAssertTrue(withLetter.hasLetters)
        XCTAssertTrue(UUIDGenerator.Bits(high: 0xF000_0000_0000_0000, low: 0, uppercase: true).hasLetters)
        XCTAssertFalse(
            UUIDGenerator.Bits(high: 0x9999_9999_9999_9999, low: 0x9090_9090_9090_9090, uppercase: true).hasLetters)
        func text(_ bits: UUIDGenerator.Bits) -> String {
            UUIDGenerator.format(high: bits.high, low: bits.low, uppercase: bits.uppercase)
        }
        for (modelID, replacement) in [
            (withLetter, digitsOnly), (digitsOnly, withLetter), (digitsOnly, digitsOnly), (withLetter, withLetter),
        ] {
            let model = Self.record(uniqueID: text(modelID))
            let (compact, landmarks) = CompactRecord.encoded(model)
            let template = try XCTUnwrap(CompactRecordTemplate(compact, landmarks: landmarks, apnsIDGenerated: false))
            var next = model
            next.uniqueID = text(replacement)
            let fromBits = template.record(
                from: compact, receivedAt: model.receivedAt, streamID: 1, apnsID: model.apnsID,
                uniqueID: next.uniqueID, uniqueIDBits: replacement)
            let fromText = template.record(
                from: compact, receivedAt: model.receivedAt, streamID: 1, apnsID: model.apnsID, uniqueID: next.uniqueID)
            XCTAssertEqual(fromBits?.bytes, fromText?.bytes, "\(text(modelID)) -> \(text(replacement))")
            XCTAssertEqual(
                fromBits == nil, modelID.hasLetters != replacement.hasLetters,
                "\(text(modelID)) -> \(text(replacement))")
            if let fromBits { XCTAssertEqual(fromBits.bytes, CompactRecord(next).bytes) }
        }
    }

    /// Generated IDs handed to the encoder as bits give the bytes and landmarks of their text,
    /// for every shape of record (those with an `apns-id` header or an echoed one included) and
    /// either letter case, digits-only UUIDs too; the record's own ID text is then not read.
    func testEncodingGeneratedBitsIsEncodingTheirText() {
        let generator = UUIDGenerator()
        let digitsOnly = UUIDGenerator.Bits(high: 0x1234_5678_9012_4345, low: 0x8123_4567_8901_2345, uppercase: false)
        var pairs = (0..<4).map { i in
            (generator.nextBits(uppercase: i % 2 == 0), generator.nextBits(uppercase: i % 2 == 1))
        }
        pairs.append((digitsOnly, digitsOnly))
        func encoded(_ record: DeliveryRecord, ids: CompactRecord.GeneratedIDs) -> ([UInt8], CompactRecord.Landmarks) {
            CompactRecord.withEncoded(record, ids: ids) { (Array($0), $1) }
        }
        for (name, model) in Self.table {
            for (apnsID, uniqueID) in pairs {
                for (withApnsID, withUniqueID) in [(true, true), (true, false), (false, true)] {
                    var spelled = model, placeholder = model
                    var ids = CompactRecord.GeneratedIDs()
                    if withApnsID {
                        spelled.apnsID = apnsID.text
                        placeholder.apnsID = "not read"
                        ids.apnsID = apnsID
                    }
                    if withUniqueID {
                        spelled.uniqueID = uniqueID.text
                        placeholder.uniqueID = nil
                        ids.uniqueID = uniqueID
                    }
                    let (expected, expectedMarks) = encoded(spelled, ids: CompactRecord.GeneratedIDs())
                    let (bytes, marks) = encoded(placeholder, ids: ids)
                    let label = "\(name): \(apnsID.text) \(uniqueID.text) \(withApnsID) \(withUniqueID)"
                    XCTAssertEqual(bytes, expected, label)
                    XCTAssertEqual(marks.streamID, expectedMarks.streamID, label)
                    XCTAssertEqual(marks.apnsID, expectedMarks.apnsID, label)
                    XCTAssertEqual(marks.uniqueID, expectedMarks.uniqueID, label)
                    XCTAssertEqual(bytes, CompactRecord(spelled).bytes, label)
                }
            }
        }
    }

    /// A generated apns-id equal to the request's `apns-id` header value is still written as a
    /// reference to the header, as its text would be.
    func testGeneratedBitsEqualToTheHeaderStillPointBackAtIt() {
        let bits = UUIDGenerator().nextBits(uppercase: true)
        var spelled = Self.record(headers: [HeaderField(name: "apns-id", value: bits.text)], apnsID: bits.text)
        spelled.verdict.apnsID = nil
        var placeholder = spelled
        placeholder.apnsID = ""
        let bytes = CompactRecord.withEncoded(placeholder, ids: CompactRecord.GeneratedIDs(apnsID: bits)) { bytes, _ in
            Array(bytes)
        }
        XCTAssertEqual(bytes, CompactRecord(spelled).bytes)
        XCTAssertEqual(CompactRecord(bytes: bytes).decoded(seq: 1).apnsID, bits.text)
    }

    func testStoreGivesBackWhatWasAppended() {
        let store = DeliveryStore(capacity: 1000)
        let rows = Self.table
        for (_, record) in rows { store.append(record) }
        for (index, (name, original)) in rows.enumerated() {
            var expected = original
            expected.seq = UInt64(index + 1)
            XCTAssertEqual(store.record(seq: UInt64(index + 1)).map(Self.fields), Self.fields(expected), name)
        }
        let all = store.query(DeliveryFilter()).deliveries
        XCTAssertEqual(all.map(\.seq), Array(1...UInt64(rows.count)))
        XCTAssertEqual(
            all.map(Self.fields),
            rows.enumerated().map { index, row in
                var expected = row.1
                expected.seq = UInt64(index + 1)
                return Self.fields(expected)
            })
    }

    /// The compact form is what makes a million records fit in memory: a typical push keeps
    /// its token once, packed, and its UUIDs and common words as bytes and codes.
    func testTypicalPushIsStoredCompactly() {
        let record = Self.record(
            headers: [
                HeaderField(name: "user-agent", value: "h2load nghttp2/1.52.0"),
                HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "alert"),
                HeaderField(name: "content-length", value: "100"),
            ],
            payload: [UInt8](repeating: 0x20, count: 100))
        let size = CompactRecord(record).bytes.count
        // Fields: 12 fixed + 6 varints; path 2 + 34 (32 token bytes); headers 1 + 2 + 23 + 2 + 17 + 2 + 2 + 2 + 5;
        // apns-id 17; token, topic, push type sent, collapse id, verdict apns-id 3 + 2 + 2 + 1 + 1;
        // listener, method 2 + 2; unique id 17; priority 1; lints 1; payload error 1; identity 2 + 1 + 1 + 1 + 1 + 2;
        // payload 1 + 100.
        XCTAssertLessThanOrEqual(size, 280)
        XCTAssertLessThan(size, CompactRecord.maximumSize(of: record))
        // The verdict's token is the path's: stored once (a reference of a few bytes), not twice.
        let withoutToken = Self.record(
            verdict: ValidationResult(
                topic: "com.example.app", pushTypeSent: "alert", pushType: .alert,
                priority: 10))
        let withToken = Self.record()
        XCTAssertLessThanOrEqual(CompactRecord(withToken).bytes.count - CompactRecord(withoutToken).bytes.count, 3)
    }

    func testStringTableFitsOneByteCodesAndHasNoDuplicates() {
        XCTAssertLessThan(CompactStringTable.strings.count, 256)
        XCTAssertEqual(Set(CompactStringTable.strings).count, CompactStringTable.strings.count)
        XCTAssertEqual(CompactStringTable.code(of: "apns-topic"), 0)
        XCTAssertNil(CompactStringTable.code(of: "apns-topicx"))
        XCTAssertEqual(CompactStringTable.strings[Int(CompactStringTable.devicePathPrefix)], "/3/device/")
        // `CompactRecordWriter.uuid(_:)` and templates write UUIDs without asking the table first.
        XCTAssertFalse(
            CompactStringTable.strings.contains { $0.utf8.count == 36 }, "no table string has a UUID's length")
    }

    /// Hex strings of every length up to 40, in either case or digits only, are packed two digits
    /// a byte (eight at a time in the writer); mixed case, odd lengths and a non-hex byte at
    /// any position (including bytes that differ from a digit by one bit) are stored inline.
    func testHexStringsArePackedAsTheirDigitPairs() {
        let digits = Array("0123456789abcdef0f1e2d3c4b5a69788796a5b4c3d2e1f0".utf8)
        func expected(_ text: [UInt8]) -> [UInt8] {
            let hex = text.allSatisfy { $0.isHexDigitForTest }
            let hasLower = text.contains { (0x61...0x66).contains($0) },
                hasUpper = text.contains { (0x41...0x46).contains($0) }
            guard hex, text.count >= 2, text.count % 2 == 0, !(hasLower && hasUpper) else {
                return [CompactStringTag.inline, UInt8(text.count)] + text
            }
            func value(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10 }
            let pairs = stride(from: 0, to: text.count, by: 2).map { value(text[$0]) << 4 | value(text[$0 + 1]) }
            return [hasLower ? CompactStringTag.hexLower : CompactStringTag.hexUpper, UInt8(text.count / 2)] + pairs
        }
        func written(_ text: [UInt8]) -> [UInt8] {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
                var w = CompactRecordWriter(buffer)
                w.string(String(decoding: text, as: UTF8.self))
                return Array(buffer[0..<w.position])
            }
        }
        var checked = 0
        for length in 1...40 {
            let lower = Array(digits[0..<length])
            let upper = lower.map { (0x61...0x66).contains($0) ? $0 - 0x20 : $0 }
            var cases = [lower, upper, Array(repeating: UInt8(ascii: "7"), count: length)]
            if let letter = lower.firstIndex(where: { $0 >= 0x61 }), lower.lastIndex(where: { $0 >= 0x61 }) != letter {
                var mixed = lower
                mixed[letter] -= 0x20
                cases.append(mixed)
            }
            for position in 0..<length {
                for bad: UInt8 in [0x2F, 0x3A, 0x40, 0x47, 0x60, 0x67, 0x20, 0x70, 0x00] {
                    var text = lower
                    text[position] = bad
                    cases.append(text)
                }
            }
            for text in cases where text.withUnsafeBufferPointer({ CompactStringTable.code(ofUTF8: $0) }) == nil {
                XCTAssertEqual(written(text), expected(text), String(decoding: text, as: UTF8.self))
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 3000)
    }

    /// The codes the encoder uses as literals name the strings they stand for.
    func testLiteralCodesNameTheirStrings() {
        let table = CompactStringTable.self
        XCTAssertEqual(table.strings[Int(table.devicePathPrefix)], "/3/device/")
        XCTAssertEqual(table.strings[Int(table.apnsTopic)], "apns-topic")
        XCTAssertEqual(table.strings[Int(table.apnsPushType)], "apns-push-type")
        XCTAssertEqual(table.strings[Int(table.apnsCollapseID)], "apns-collapse-id")
        XCTAssertEqual(table.strings[Int(table.apnsID)], "apns-id")
    }

    /// Every table string is found under its own code, with its bytes; near misses (a byte
    /// more or less, another case, another last byte, other text of the same length and ends)
    /// and the empty string are not.
    func testStringTableFindsEveryStringAndNothingElse() {
        for (code, text) in CompactStringTable.strings.enumerated() {
            XCTAssertEqual(CompactStringTable.code(of: text), UInt8(code), text)
            XCTAssertEqual(Array(CompactStringTable.bytes(of: UInt8(code))), Array(text.utf8), text)
            XCTAssertNil(CompactStringTable.code(of: text + "x"), text)
            XCTAssertNil(
                CompactStringTable.code(of: String(text.dropLast())).flatMap { $0 == UInt8(code) ? $0 : nil }, text)
            XCTAssertNil(
                CompactStringTable.code(of: text.uppercased() == text ? text.lowercased() + "!" : text.uppercased()),
                text)
            var bytes = Array(text.utf8)
            bytes[bytes.count - 1] = UInt8(ascii: "~")  // no table string ends with it
            XCTAssertNil(CompactStringTable.code(of: String(decoding: bytes, as: UTF8.self)), text)
            if bytes.count > 2 {
                bytes = Array(text.utf8)
                bytes[1] = bytes[1] == UInt8(ascii: "#") ? UInt8(ascii: "%") : UInt8(ascii: "#")
                XCTAssertNil(CompactStringTable.code(of: String(decoding: bytes, as: UTF8.self)), text)
            }
        }
        XCTAssertNil(CompactStringTable.code(of: ""))
        XCTAssertNil(CompactStringTable.code(of: String(repeating: "a", count: 64)))
    }

    // MARK: filters on the compact form

    func testFiltersMatchTheCompactFormAsTheDecodedOne() {
        let filters = Self.filters
        var matchedSomewhere = Set<Int>()
        for (index, (name, original)) in Self.table.enumerated() {
            var record = original
            record.seq = UInt64(index + 1)
            let compact = CompactRecord(original)
            for (f, filter) in filters.enumerated() {
                let expected = filter.matches(record)
                if expected { matchedSomewhere.insert(f) }
                XCTAssertEqual(
                    CompactRecordMatcher(filter).matches(compact, seq: record.seq), expected,
                    "\(name) with \(filter)")
            }
        }
        // Every filter but the nonsense push type and the two decomposed / compatibility spellings
        // (records hold the precomposed ones) matches some record: the table exercises each one.
        XCTAssertEqual(matchedSomewhere.count, filters.count - 3)
    }

    /// A repeat stored as a delta is matched as its decoded record: by its own generated apns-id
    /// (in either letter case), not its model's, and by every other filter as its model is.
    func testFiltersMatchRepeatsAsTheirDecodedRecords() throws {
        let generator = UUIDGenerator()
        var repeatsWithNewIDs = 0
        for (index, (name, model)) in Self.table.enumerated() {
            for generated in [true, false] {
                let (compact, landmarks) = CompactRecord.encoded(model)
                guard let template = CompactRecordTemplate(compact, landmarks: landmarks, apnsIDGenerated: generated)
                else { continue }
                let upper = { (text: String) in text.uppercased() == text }
                let apnsID = generated ? generator.nextBits(uppercase: upper(model.apnsID)) : nil
                let uniqueID = model.uniqueID.map { generator.nextBits(uppercase: upper($0)) }
                var next = model
                next.streamID = 8193
                next.receivedAt = 5.5
                next.apnsID = apnsID?.text ?? model.apnsID
                next.uniqueID = uniqueID?.text
                next.seq = UInt64(index + 1)
                let rewrite = try XCTUnwrap(
                    template.rewrite(
                        receivedAt: next.receivedAt, streamID: next.streamID,
                        apnsID: apnsID.map { .uuid($0) } ?? .text(next.apnsID),
                        uniqueID: uniqueID.map { .uuid($0) }))
                let stored = Self.storedRepeat(of: compact, template: template, rewrite)
                if next.apnsID != model.apnsID { repeatsWithNewIDs += 1 }
                let ownIDs = [model.apnsID, next.apnsID, next.apnsID.lowercased(), next.apnsID.uppercased()]
                for filter in Self.filters + ownIDs.map({ DeliveryFilter(apnsID: $0) })
                    + ownIDs.map({ DeliveryFilter(status: model.status, apnsID: $0) })
                {
                    XCTAssertEqual(
                        CompactRecordMatcher(filter).matches(stored, seq: next.seq), filter.matches(next),
                        "\(name), generated \(generated), with \(filter)")
                }
            }
        }
        XCTAssertGreaterThan(repeatsWithNewIDs, Self.table.count / 2, "most shapes repeat with a generated apns-id")
    }

    private static var filters: [DeliveryFilter] {
        [
            DeliveryFilter(),
            DeliveryFilter(after: 3),
            DeliveryFilter(token: Self.token64), DeliveryFilter(token: "abcdef0123"), DeliveryFilter(token: "ünï"),
            DeliveryFilter(token: "ABCDEF0123"), DeliveryFilter(token: "xyz?q=1"),
            DeliveryFilter(topic: "com.example.app"), DeliveryFilter(topic: "caf\u{e9}"),
            DeliveryFilter(topic: "cafe\u{301}"),
            DeliveryFilter(topic: "b"), DeliveryFilter(topic: "com.exämple.app"),
            DeliveryFilter(pushType: "alert"), DeliveryFilter(pushType: "background"),
            DeliveryFilter(pushType: "Alert!"),
            DeliveryFilter(pushType: "voip"), DeliveryFilter(pushType: "nonsense"),
            DeliveryFilter(status: 200), DeliveryFilter(status: 410), DeliveryFilter(status: 400),
            DeliveryFilter(reason: .unregistered), DeliveryFilter(reason: .badPath),
            DeliveryFilter(apnsID: Self.uuidUpper), DeliveryFilter(apnsID: Self.uuidLower),
            DeliveryFilter(apnsID: "NOT-A-UUID"),
            DeliveryFilter(collapseID: "group-1"), DeliveryFilter(collapseID: "\u{c5}"),
            DeliveryFilter(collapseID: "\u{212B}"),
            DeliveryFilter(environment: .production), DeliveryFilter(environment: .sandbox),
            DeliveryFilter(
                token: Self.token64, topic: "com.example.app", pushType: "alert", status: 200,
                environment: .sandbox, after: 1),
            DeliveryFilter(
                topic: "com.example.app", status: 410, reason: .unregistered, apnsID: Self.uuidLower,
                collapseID: "group-1", environment: .production),
        ]
    }

    // MARK: helpers

    /// Every field of `record` as exact bytes (`String` equality would equate canonically
    /// equivalent text that did not round-trip).
    private static func fields(_ record: DeliveryRecord) -> [String] {
        func b(_ text: String?) -> String {
            text.map { "[" + $0.utf8.map(String.init).joined(separator: ",") + "]" } ?? "nil"
        }
        func n<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "nil" }
        let v = record.verdict
        var out = [
            "seq \(record.seq)", "receivedAt \(record.receivedAt.bitPattern)", "environment \(record.environment)",
            "listener \(b(record.listener))", "connection \(record.connectionID)", "stream \(record.streamID)",
            "method \(b(record.method))", "path \(b(record.path))", "apnsID \(b(record.apnsID))",
            "uniqueID \(b(record.uniqueID))", "payload \(record.payload)", "payloadBytes \(record.payloadBytes)",
            "status \(record.status)", "reason \(n(record.reason))",
            "v.reason \(n(v.reason))", "v.timestamp \(n(v.timestamp))", "v.token \(b(v.deviceToken))",
            "v.topic \(b(v.topic))", "v.pushTypeSent \(b(v.pushTypeSent))", "v.pushType \(n(v.pushType))",
            "v.priority \(n(v.priority))", "v.expiration \(n(v.expiration))", "v.collapse \(b(v.collapseID))",
            "v.apnsID \(b(v.apnsID))", "v.lints \(v.lints.map(b))", "v.payloadError \(b(v.payloadError))",
            "headers \(record.headers.map { b($0.name) + ":" + b($0.value) })",
        ]
        if let i = record.identity {
            out.append(
                "identity \(b(i.kind)) \(b(i.keyID)) \(b(i.teamID)) \(n(i.issuedAt?.bitPattern)) \(b(i.subject)) "
                    + "\(i.topics.map { $0.map(b) }.map { "\($0)" } ?? "nil") \(b(i.verdict))")
        } else {
            out.append("identity nil")
        }
        if let f = record.fault {
            out.append("fault \(b(f.ruleID)) \(b(f.action)) \(b(f.description))")
        } else {
            out.append("fault nil")
        }
        return out
    }
}

private extension UInt8 {
    var isHexDigitForTest: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
