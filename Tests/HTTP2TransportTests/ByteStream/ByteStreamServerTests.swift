import Foundation
import HTTP2Transport
import Synchronization
import TestSupport
import XCTest

/// Echoes what arrives; a `q` closes after writing `bye`; a feedback-style greeting on open.
private final class EchoStreamHandler: ByteStreamHandler {
    let events = Mutex<[String]>([])
    let greeting: [UInt8]
    init(greeting: [UInt8] = []) { self.greeting = greeting }

    func connectionOpened(_ connection: ByteStreamConnection) {
        events.withLock { $0.append("opened \(connection.info.id)") }
        if !greeting.isEmpty {
            connection.write(greeting)
            connection.closeAfterWriting()
        }
    }

    func received(_ bytes: UnsafeRawBufferPointer, on connection: ByteStreamConnection) {
        let data = Array(bytes)
        if connection.isDraining {
            events.withLock { $0.append("drained \(data.count)") }
            return
        }
        if data.contains(UInt8(ascii: "f")) {
            connection.write(Array("end".utf8))
            connection.finish(drainFor: 5)
        } else if data.contains(UInt8(ascii: "q")) {
            connection.write(Array("bye".utf8))
            connection.closeAfterWriting()
        } else {
            connection.write(data)
        }
    }

    func connectionClosed(_ connection: ByteStreamConnection, byPeer: Bool) {
        events.withLock { $0.append("closed byPeer=\(byPeer)") }
    }
}

final class ByteStreamServerTests: XCTestCase {
    private func readAll(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return out }
            out += buffer[0..<count]
        }
    }

    private func start(_ handlers: [EchoStreamHandler]) throws -> ByteStreamServer {
        let ids = Atomic<UInt64>(1)
        let server = ByteStreamServer(
            listeners: handlers.map { _ in ByteStreamListenerSpec(host: "127.0.0.1", port: 0, tls: nil) },
            handlers: handlers, nextConnectionID: { ids.add(1, ordering: .relaxed).oldValue })
        try server.start()
        return server
    }

    func testEchoThenCloseAfterWriting() throws {
        let handler = EchoStreamHandler()
        let server = try start([handler])
        defer { server.shutdown(timeout: 1) { _ in } }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        XCTAssertGreaterThan(fd, 0)
        defer { close(fd) }
        _ = Array("abc".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 3) }
        var echo = [UInt8](repeating: 0, count: 3)
        XCTAssertEqual(read(fd, &echo, 3), 3)
        XCTAssertEqual(echo, Array("abc".utf8))
        _ = Array("q".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 1) }
        XCTAssertEqual(readAll(fd), Array("bye".utf8), "written, then FIN")
        usleep(20_000)
        XCTAssertEqual(handler.events.withLock { $0 }, ["opened 1", "closed byPeer=false"])
        XCTAssertEqual(server.openConnections, 0)
    }

    func testGreetingOnOpenAndOneHandlerPerListener() throws {
        let plain = EchoStreamHandler()
        let greeter = EchoStreamHandler(greeting: [1, 2, 3])
        let server = try start([plain, greeter])
        defer { server.shutdown(timeout: 1) { _ in } }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[1].port)
        defer { close(fd) }
        XCTAssertEqual(readAll(fd), [1, 2, 3])
        XCTAssertEqual(plain.events.withLock { $0 }, [])
    }

    func testShutdownFarewellReachesOpenConnections() throws {
        let handler = EchoStreamHandler()
        let server = try start([handler])
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        defer { close(fd) }
        _ = Array("x".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 1) }
        var echo: UInt8 = 0
        XCTAssertEqual(read(fd, &echo, 1), 1)
        server.shutdown(timeout: 1) { connection in
            connection.write([8, 10, 0, 0, 0, 0])
            connection.closeAfterWriting()
        }
        XCTAssertEqual(readAll(fd), [8, 10, 0, 0, 0, 0])
    }

    func testPeerCloseIsReported() throws {
        let handler = EchoStreamHandler()
        let server = try start([handler])
        defer { server.shutdown(timeout: 1) { _ in } }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        usleep(20_000)
        close(fd)
        var waited = 0
        while server.openConnections > 0 && waited < 200 {
            usleep(5000)
            waited += 1
        }
        XCTAssertEqual(handler.events.withLock { $0 }.last, "closed byPeer=true")
    }

    /// `finish(drainFor:)`: the bytes written, then a FIN; what the peer still sends is read (no
    /// reset) until it closes.
    func testFinishSendsFINAndKeepsReadingUntilThePeerCloses() throws {
        let handler = EchoStreamHandler()
        let server = try start([handler])
        defer { server.shutdown(timeout: 1) { _ in } }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        _ = Array("f".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 1) }
        XCTAssertEqual(readAll(fd), Array("end".utf8), "written, then FIN")
        _ = Array("more".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 4) }
        usleep(50_000)
        XCTAssertEqual(server.openConnections, 1, "still reading")
        close(fd)
        var waited = 0
        while server.openConnections > 0 && waited < 200 {
            usleep(5000)
            waited += 1
        }
        XCTAssertEqual(handler.events.withLock { $0 }, ["opened 1", "drained 4", "closed byPeer=true"])
    }

    private func waitUntil(_ condition: () -> Bool, seconds: Double = 3) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { usleep(5000) }
    }

    /// Past `maxConnections` a new connection is reset at once (before any byte), counted
    /// and reported; a place freed takes the next one.
    func testConnectionsPastTheCapAreClosedAtOnceAndCounted() throws {
        let handler = EchoStreamHandler()
        let reported = Mutex<[String]>([])
        let ids = Atomic<UInt64>(1)
        let server = ByteStreamServer(
            listeners: [ByteStreamListenerSpec(host: "127.0.0.1", port: 0, tls: nil, maxConnections: 1)],
            handlers: [handler], nextConnectionID: { ids.add(1, ordering: .relaxed).oldValue },
            onRefused: { index, _ in reported.withLock { $0.append("refused \(index)") } })
        try server.start()
        defer { server.shutdown(timeout: 1) { _ in } }
        let port = server.boundAddresses[0].port
        let first = LoopbackSocket.connect(port: port)
        defer { close(first) }
        waitUntil { server.openConnections == 1 }
        let second = LoopbackSocket.connect(port: port)
        XCTAssertEqual(readAll(second), [], "reset at once")
        close(second)
        waitUntil { server.refusedConnections(listener: 0) == 1 }
        XCTAssertEqual(server.refusedConnections(listener: 0), 1)
        XCTAssertEqual(reported.withLock { $0 }, ["refused 0"])
        XCTAssertEqual(server.openConnections, 1)
        close(first)
        waitUntil { server.openConnections == 0 }
        let third = LoopbackSocket.connect(port: port)
        defer { close(third) }
        _ = Array("z".utf8).withUnsafeBytes { write(third, $0.baseAddress, 1) }
        var echo: UInt8 = 0
        XCTAssertEqual(read(third, &echo, 1), 1, "a freed place serves the next")
    }

    /// A connection whose peer sends nothing for `idleTimeoutSeconds` is closed; bytes keep it open.
    func testAnIdleConnectionIsClosed() throws {
        let handler = EchoStreamHandler()
        let ids = Atomic<UInt64>(1)
        let server = ByteStreamServer(
            listeners: [ByteStreamListenerSpec(host: "127.0.0.1", port: 0, tls: nil, idleTimeoutSeconds: 0.3)],
            handlers: [handler], nextConnectionID: { ids.add(1, ordering: .relaxed).oldValue })
        try server.start()
        defer { server.shutdown(timeout: 1) { _ in } }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        defer { close(fd) }
        for _ in 0..<4 {
            usleep(150_000)
            _ = Array("k".utf8).withUnsafeBytes { write(fd, $0.baseAddress, 1) }
        }
        XCTAssertEqual(server.openConnections, 1, "bytes every 0.15 s keep it open past 0.3 s")
        let start = Date()
        XCTAssertEqual(readAll(fd), Array("kkkk".utf8), "then the FIN")
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.2)
        waitUntil { server.openConnections == 0 }
        XCTAssertEqual(handler.events.withLock { $0 }.last, "closed byPeer=false")
    }
}
