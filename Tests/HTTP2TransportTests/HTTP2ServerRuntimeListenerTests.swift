import Foundation
import HTTP2Transport
import Synchronization
import TestSupport
import XCTest

/// Answers every request with its own name and the connection's listener index and id.
final class NamedHandler: HTTP2RequestHandler {
    let name: String
    let closed = Atomic<Int>(0)
    init(name: String) { self.name = name }
    func handle(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action {
        let text = "\(name) \(connection.info.listenerIndex) \(connection.info.listenerID)"
        return .respond(HTTP2Response(status: 200, headers: [], body: Array(text.utf8)))
    }
    func connectionOpened(_ connection: HTTP2Connection) {}
    func connectionClosed(_ connection: HTTP2Connection) { closed.add(1, ordering: .relaxed) }
}

/// `HTTP2Server.addListener` and `removeListener`: a listener bound while the server runs, served
/// by its own handler on the same workers, and closed again (docs/testing.md "Isolated gateways").
final class HTTP2ServerRuntimeListenerTests: XCTestCase {
    func testAListenerAddedAtRuntimeIsServedByItsOwnHandlerAndClosedOnRemoval() throws {
        let tls = try TLSContext.ephemeral()
        let settings = HTTP2Settings()
        let acceptLoop = EventLoop()
        let first = NamedHandler(name: "first")
        let server = HTTP2Server(
            listeners: [HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: tls, settings: settings)],
            workerCount: 2, acceptLoop: acceptLoop, handler: first)
        try server.start()
        acceptLoop.start()
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let second = NamedHandler(name: "second")
        let added = try server.addListener(
            HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: tls, settings: settings), handler: second)
        XCTAssertEqual(added.id, 1, "the configured listeners take ids 0 to count - 1")
        XCTAssertNotEqual(added.address.port, 0)
        XCTAssertNotEqual(added.address.port, server.boundAddresses[0].port)
        let third = try server.addListener(
            HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: tls, settings: settings), handler: second)
        XCTAssertEqual(third.id, 2)

        func get(_ port: Int) throws -> (Int32, String) {
            let (status, out, _) = try runTool(
                "/usr/bin/curl", ["-sS", "-k", "--http2", "--max-time", "5", "https://127.0.0.1:\(port)/x"])
            return (status, out)
        }
        XCTAssertEqual(try get(server.boundAddresses[0].port).1, "first 0 0")
        XCTAssertEqual(try get(added.address.port).1, "second 0 1")
        XCTAssertEqual(try get(third.address.port).1, "second 0 2")

        // The same port again is in use.
        XCTAssertThrowsError(
            try server.addListener(
                HTTP2ListenerSpec(host: "127.0.0.1", port: added.address.port, tls: tls, settings: settings),
                handler: second))

        XCTAssertTrue(server.removeListener(id: added.id, debugData: [], drainTimeout: 1))
        XCTAssertFalse(server.removeListener(id: added.id, debugData: [], drainTimeout: 1), "removed once only")
        XCTAssertFalse(server.removeListener(id: 0, debugData: [], drainTimeout: 1), "a configured one stays")
        XCTAssertEqual(try get(added.address.port).0, 7, "connection refused once removed")
        XCTAssertEqual(try get(third.address.port).1, "second 0 2", "the other runtime listener still serves")
        XCTAssertEqual(try get(server.boundAddresses[0].port).1, "first 0 0")
    }

    func testRemovingAListenerSendsItsOpenConnectionsGoawayAndClosesThem() throws {
        let acceptLoop = EventLoop()
        let server = HTTP2Server(
            listeners: [HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: nil, settings: HTTP2Settings())],
            workerCount: 1, acceptLoop: acceptLoop, handler: NamedHandler(name: "first"))
        try server.start()
        acceptLoop.start()
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let handler = NamedHandler(name: "runtime")
        let added = try server.addListener(
            HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: nil, settings: HTTP2Settings()), handler: handler)
        // Cleartext prior knowledge: the preface and an empty SETTINGS, then the connection stays open.
        let fd = LoopbackSocket.connect(port: added.address.port)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        XCTAssertEqual(preface.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, preface.count)
        var waited = 0.0
        while server.openConnections == 0 && waited < 5 {
            usleep(10_000)
            waited += 0.01
        }
        XCTAssertEqual(server.openConnections, 1)
        XCTAssertEqual(
            server.configuredOpenConnections, 0, "a runtime listener's connection is not the configured ones'")
        let start = Date()
        XCTAssertTrue(server.removeListener(id: added.id, debugData: Array("bye".utf8), drainTimeout: 1))
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
        XCTAssertEqual(server.openConnections, 0, "every connection of the removed listener is closed")
        XCTAssertEqual(handler.closed.load(ordering: .relaxed), 1)
        // What the server wrote: its SETTINGS, the SETTINGS ACK, then GOAWAY (type 7) with "bye", then EOF.
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        var offset = 0
        var types: [UInt8] = []
        while offset + 9 <= received.count {
            let length = Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
            types.append(received[offset + 3])
            if received[offset + 3] == 7 {
                XCTAssertEqual(Array(received[(offset + 17)..<(offset + 9 + length)]), Array("bye".utf8))
            }
            offset += 9 + length
        }
        XCTAssertTrue(types.contains(7), "a GOAWAY came before the close: \(types)")
    }
}
