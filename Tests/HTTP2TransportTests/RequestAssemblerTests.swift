import XCTest

@testable import HTTP2Transport

/// `RequestAssembler`, driven as nghttp2's callbacks drive it (fields, end of the header block,
/// DATA, trailers), without sockets: each case is a sequence of requests on one assembler, as on
/// one connection, and says what each request must come out as.
final class RequestAssemblerTests: XCTestCase {
    /// One request of a case.
    struct Step {
        /// The header block, pseudo-headers included, in order.
        var fields: [(String, String)]
        /// DATA chunks, after the header block.
        var body: [[UInt8]] = []
        /// Trailer fields, after the body.
        var trailers: [(String, String)] = []
        /// False: the header block never completes (a stream reset early); nothing is expected of it.
        var completes = true
        /// The request's header list is the previous completed block's list itself (shared storage).
        var shared = false
        /// The header list passed the limit: no fields kept (answered 431 by the connection).
        var tooLarge = false
        /// Body bytes kept; nil: all of them.
        var storedBody: Int?
    }

    struct Case {
        var name: String
        var maxHeaderListSize = 16_384
        var maxStoredBodyBytes = 5_120
        var steps: [Step]
    }

    static let token = String(repeating: "ab", count: 32)
    static let pseudo = [
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + token),
        (":authority", "api.push.apple.com"),
    ]
    static let block =
        pseudo + [
            ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("user-agent", "h2load nghttp2/1.52.0"),
        ]
    static let other =
        pseudo + [
            ("apns-topic", "com.example.other"), ("apns-push-type", "alert"), ("user-agent", "h2load nghttp2/1.52.0"),
        ]
    /// `block` to another device token: only `:path` differs.
    static let otherDevice = block.map {
        $0.0 == ":path" ? ($0.0, "/3/device/" + String(repeating: "cd", count: 32)) : $0
    }

    static let cases: [Case] = [
        Case(name: "a first block is stored field by field", steps: [Step(fields: block)]),
        Case(
            name: "an identical block gets the previous list itself",
            steps: [
                Step(fields: block), Step(fields: block, shared: true), Step(fields: block, shared: true),
            ]),
        Case(name: "a value differing in the middle", steps: [Step(fields: block), Step(fields: other)]),
        Case(
            name: "a new :path (another device token) keeps the previous list",
            steps: [
                Step(fields: block), Step(fields: otherDevice, shared: true), Step(fields: block, shared: true),
                Step(fields: otherDevice + [("apns-priority", "5")]), Step(fields: block),
            ]),
        Case(
            name: "a new :method or :authority keeps it too",
            steps: [
                Step(fields: block),
                Step(fields: block.map { $0.0 == ":method" ? ($0.0, "GET") : $0 }, shared: true),
                Step(
                    fields: block.map { $0.0 == ":authority" ? ($0.0, "api.sandbox.push.apple.com") : $0 }, shared: true
                ),
            ]),
        Case(
            name: "a pseudo-header where a regular field was, and back",
            steps: [
                Step(fields: block), Step(fields: pseudo + [(":protocol", "x")] + Array(block.dropFirst(4))),
                Step(fields: block),
            ]),
        Case(
            name: "a differing block becomes the one compared with",
            steps: [
                Step(fields: block), Step(fields: other), Step(fields: other, shared: true), Step(fields: block),
            ]),
        Case(
            name: "a shorter block (the previous one's first fields)",
            steps: [
                Step(fields: block), Step(fields: Array(block.dropLast())),
                Step(fields: Array(block.dropLast()), shared: true),
            ]),
        Case(name: "a longer block", steps: [Step(fields: block), Step(fields: block + [("apns-priority", "5")])]),
        Case(
            name: "the same fields at other positions",
            steps: [
                Step(fields: block), Step(fields: [(":method", "POST")] + block),
            ]),
        Case(
            name: "no :authority: nil, and :scheme makes no field",
            steps: [
                Step(fields: [(":method", "GET"), (":scheme", "https"), (":path", "/")])
            ]),
        Case(
            name: "an empty value and an empty block",
            steps: [
                Step(fields: pseudo + [("x-empty", "")]), Step(fields: pseudo + [("x-empty", "")], shared: true),
                Step(fields: pseudo),
            ]),
        Case(
            name: "invalid UTF-8 is repaired, never matched as raw bytes",
            steps: [
                Step(fields: pseudo + [("x-bad", "caf\u{FFFD}")]), Step(fields: pseudo + [("x-bad", "caf\u{FFFD}")]),
            ]),
        Case(
            name: "a header list over the limit keeps nothing; the next request is whole", maxHeaderListSize: 500,
            steps: [
                Step(fields: block),
                Step(fields: block + [("x-big", String(repeating: "x", count: 300))], tooLarge: true),
                Step(fields: block, shared: true),
            ]),
        Case(
            name: "the limit counts name + value + 32 per field",
            maxHeaderListSize: (7 + 4 + 32) + (5 + 1 + 32) + (7 + 5 + 32),
            steps: [
                Step(fields: [(":method", "POST"), (":path", "/"), (":scheme", "https")]),
                Step(fields: [(":method", "POST"), (":path", "//"), (":scheme", "https")], tooLarge: true),
            ]),
        Case(
            name: "trailers are appended, counted on their own, and do not become the previous block",
            maxHeaderListSize: 500,
            steps: [
                Step(fields: block, trailers: [("x-trailer", String(repeating: "t", count: 100))]),
                Step(fields: block), Step(fields: block, shared: true),
            ]),
        Case(
            name: "trailers after a repeated block",
            steps: [
                Step(fields: block), Step(fields: block, trailers: [("x-trailer", "1")], shared: true),
                Step(fields: block),
            ]),
        Case(
            name: "a block that never completed does not count as the previous one",
            steps: [
                Step(fields: block), Step(fields: other, completes: false), Step(fields: block),
                Step(fields: block, shared: true),
            ]),
        Case(
            name: "a block cut short after repeating fields",
            steps: [
                Step(fields: block), Step(fields: Array(block.prefix(5)), completes: false),
                Step(fields: block, shared: true),
            ]),
        Case(
            name: "the body is kept up to the limit and counted whole", maxStoredBodyBytes: 10,
            steps: [
                Step(fields: block, body: [Array("0123456".utf8), Array("789abc".utf8)], storedBody: 10),
                Step(fields: block, body: [Array("{}".utf8)], shared: true),
            ]),
        Case(
            name: "no body", maxStoredBodyBytes: 0,
            steps: [Step(fields: block, body: [Array("{}".utf8)], storedBody: 0)]),
    ]

    func testCases() {
        for testCase in RequestAssemblerTests.cases {
            let assembler = RequestAssembler(
                maxHeaderListSize: testCase.maxHeaderListSize,
                maxStoredBodyBytes: testCase.maxStoredBodyBytes)
            var previous: [HeaderField] = []
            var streamID: Int32 = 1
            for (index, step) in testCase.steps.enumerated() {
                let context = "\(testCase.name), request \(index + 1)"
                let stream = StreamState(id: streamID)
                streamID += 2
                feed(assembler, stream, step.fields)
                guard step.completes else { continue }
                assembler.finishHeaderBlock(stream)
                let early = assembler.headersRequest(on: stream.id, from: stream)
                // `early` copies the list the block ended with: the previous block's own storage
                // when it repeated (an empty list's storage is shared by all, so none counts).
                let sharesPrevious =
                    !previous.isEmpty
                    && early.headers.withUnsafeBufferPointer { $0.baseAddress }
                        == previous.withUnsafeBufferPointer { $0.baseAddress }
                for chunk in step.body {
                    chunk.withUnsafeBufferPointer { assembler.body(on: stream, $0.baseAddress!, $0.count) }
                }
                feed(assembler, stream, step.trailers)
                assembler.finishHeaderBlock(stream)  // a second time: nothing changes
                let request = assembler.takeRequest(on: stream.id, from: stream)

                XCTAssertEqual(stream.headerListTooLarge, step.tooLarge, context)
                XCTAssertEqual(sharesPrevious, step.shared, "\(context): shares the previous list")
                let expected = step.tooLarge ? [] : regular(step.fields) + regular(step.trailers)
                XCTAssertEqual(request.headers, expected, context)
                XCTAssertEqual(early.headers, step.tooLarge ? [] : regular(step.fields), "\(context): at HEADERS")
                if !step.tooLarge {
                    XCTAssertEqual(request.method, value(":method", step.fields) ?? "", context)
                    XCTAssertEqual(request.path, value(":path", step.fields) ?? "", context)
                    XCTAssertEqual(request.authority, value(":authority", step.fields), context)
                    XCTAssertEqual(early.method, request.method, context)
                    XCTAssertEqual(early.path, request.path, context)
                    XCTAssertEqual(early.authority, request.authority, context)
                }
                XCTAssertEqual(early.body, [], context)
                let body = step.body.flatMap { $0 }
                XCTAssertEqual(request.bodyLength, body.count, context)
                XCTAssertEqual(request.body, Array(body.prefix(step.storedBody ?? body.count)), context)
                XCTAssertEqual(request.streamID, stream.id, context)
                XCTAssertEqual(stream.headers, [], "\(context): moved out of the stream")
                XCTAssertEqual(stream.method, "", context)
                if !step.tooLarge { previous = early.headers }
            }
        }
    }

    /// The body goes back to the stream: its storage is kept for the stream's next request.
    func testBodyStorageGoesBackToTheStream() {
        let assembler = RequestAssembler(maxHeaderListSize: 16_384, maxStoredBodyBytes: 5_120)
        let stream = StreamState(id: 1)
        feed(assembler, stream, RequestAssemblerTests.block)
        assembler.finishHeaderBlock(stream)
        Array("{\"aps\":{}}".utf8).withUnsafeBufferPointer { assembler.body(on: stream, $0.baseAddress!, $0.count) }
        var request = assembler.takeRequest(on: 1, from: stream)
        let storage = request.body.withUnsafeBufferPointer { $0.baseAddress }
        XCTAssertEqual(stream.body, [])
        assembler.recycleBody(of: &request, into: stream)
        XCTAssertEqual(request.body, [])
        XCTAssertEqual(stream.body.withUnsafeBufferPointer { $0.baseAddress }, storage)
    }

    /// Repeated blocks reuse the interner's Strings rather than making them (pseudo-headers too).
    func testRepeatedFieldsAreInterned() {
        let assembler = RequestAssembler(maxHeaderListSize: 16_384, maxStoredBodyBytes: 5_120)
        for id in [Int32(1), 3] {
            let stream = StreamState(id: id)
            feed(assembler, stream, RequestAssemblerTests.block)
            assembler.finishHeaderBlock(stream)
        }
        // :method, :path and :authority the second time; the regular fields are only compared.
        XCTAssertEqual(assembler.interner.reused, 3)
        assembler.removeAll()
        let stream = StreamState(id: 5)
        feed(assembler, stream, RequestAssemblerTests.block)
        assembler.finishHeaderBlock(stream)
        XCTAssertEqual(assembler.interner.reused, 3, "nothing remembered after removeAll")
        XCTAssertEqual(stream.headers, regular(RequestAssemblerTests.block))
    }

    private func feed(_ assembler: RequestAssembler, _ stream: StreamState, _ fields: [(String, String)]) {
        for (name, value) in fields {
            let nameBytes = Array(name.utf8)
            // A value ending in U+FFFD stands for one received with an invalid last byte.
            let valueBytes = value.hasSuffix("\u{FFFD}") ? Array(value.dropLast().utf8) + [0xE9] : Array(value.utf8)
            nameBytes.withUnsafeBufferPointer { n in
                valueBytes.withUnsafeBufferPointer { v in
                    // A non-nil pointer for empty values, as nghttp2 gives.
                    withUnsafePointer(to: UInt8(0)) { empty in
                        assembler.header(
                            on: stream, name: n.baseAddress ?? empty, nameLength: n.count,
                            value: v.baseAddress ?? empty, valueLength: v.count)
                    }
                }
            }
        }
    }

    private func regular(_ fields: [(String, String)]) -> [HeaderField] {
        fields.filter { !$0.0.hasPrefix(":") }.map { HeaderField(name: $0.0, value: $0.1) }
    }

    private func value(_ name: String, _ fields: [(String, String)]) -> String? {
        fields.first { $0.0 == name }?.1
    }
}
