import Foundation
import HTTP2Transport
import Synchronization
import XCTest

/// Once a request was handled (`pending`), holds every write-out until `open()`: a journal
/// whose record has not been synced yet. Before that it returns at once, as a journal with
/// nothing queued does (the connection's SETTINGS go out).
private final class Gate: AnswerDurability {
    let calls = Atomic<Int>(0)
    let pending = Atomic<Bool>(false)
    private let opened = Atomic<Bool>(false)
    func open() { opened.store(true, ordering: .releasing) }
    func awaitDurable() {
        calls.add(1, ordering: .relaxed)
        guard pending.load(ordering: .acquiring) else { return }
        while !opened.load(ordering: .acquiring) { usleep(1000) }
    }
}

/// Answers 200 at once, but with `answerDurability` set.
private final class GatedHandler: HTTP2RequestHandler {
    let gate = Gate()
    let handled = Mutex<Date?>(nil)
    var answerDurability: (any AnswerDurability)? { gate }
    func handle(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action {
        handled.withLock { $0 = $0 ?? Date() }
        gate.pending.store(true, ordering: .releasing)
        return .respond(HTTP2Response(status: 200, headers: [], body: Array("ok".utf8)))
    }
    func connectionOpened(_ connection: HTTP2Connection) {}
    func connectionClosed(_ connection: HTTP2Connection) {}
}

/// `HTTP2RequestHandler.answerDurability`: nothing a connection serialized is written before
/// `awaitDurable()` returns (`--journal-sync always`, README "Journal").
final class AnswerDurabilityTests: XCTestCase {
    func testNoAnswerLeavesBeforeAwaitDurableReturns() throws {
        let handler = GatedHandler()
        let acceptLoop = EventLoop()
        let server = HTTP2Server(
            listeners: [HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: nil, settings: HTTP2Settings())],
            workerCount: 1, acceptLoop: acceptLoop, handler: handler)
        try server.start()
        acceptLoop.start()
        defer {
            handler.gate.open()
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let port = server.boundAddresses[0].port
        let started = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { handler.gate.open() }
        let (status, out, err) = try runTool(
            "/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "-w", " %{http_code}", "http://127.0.0.1:\(port)/x"])
        let answeredAfter = Date().timeIntervalSince(started)
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "ok 200")
        XCTAssertGreaterThanOrEqual(answeredAfter, 0.45, "the answer left before the gate opened")
        let handledAfter = try XCTUnwrap(handler.handled.withLock { $0 }).timeIntervalSince(started)
        XCTAssertLessThan(handledAfter, 0.45, "the request itself was handled at once")
        XCTAssertGreaterThan(handler.gate.calls.load(ordering: .relaxed), 0)
    }
}
