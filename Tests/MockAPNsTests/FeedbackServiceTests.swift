import APNsCore
import Configuration
import Foundation
import HTTP2Transport
import Recording
import Synchronization
import TestSupport
import XCTest

@testable import MockAPNs

/// The feedback service spends a tuple once it is written to a connection, not when it is read
/// for one (docs/legacy-binary.md §8): a connection that closes before its write leaves the
/// tuples for the next.
final class FeedbackServiceTests: XCTestCase {
    private func registry(count: Int) -> DeviceRegistry {
        DeviceRegistry(
            devices: (0..<count).map { index in
                DeviceRegistration(
                    token: String(format: "%064x", index), environment: .sandbox, unregisteredAt: 1_000_000)
            })
    }

    private func start(_ service: FeedbackService) throws -> ByteStreamServer {
        let ids = Atomic<UInt64>(1 << 32)
        let server = ByteStreamServer(
            listeners: [ByteStreamListenerSpec(host: "127.0.0.1", port: 0, tls: nil)], handlers: [service],
            nextConnectionID: { ids.add(1, ordering: .relaxed).oldValue })
        try server.start()
        return server
    }

    private func waitUntil(_ condition: () -> Bool, seconds: Double = 10) {
        let end = Date().addingTimeInterval(seconds)
        while !condition() && Date() < end { usleep(10_000) }
    }

    private func readAll(_ fd: Int32) -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return total }
            total += count
        }
    }

    func testPendingTakesNothingAndSpendTakesWhatWasWritten() {
        let service = FeedbackService(
            listener: BinaryListenerConfiguration(kind: .feedback), asksForCertificates: false,
            registry: registry(count: 3), nowMilliseconds: { 2_000_000 })
        XCTAssertEqual(service.pending().count, 3)
        XCTAssertEqual(service.pending().count, 3, "listing takes nothing")
        service.spend(Array(service.pending().prefix(1)))
        XCTAssertEqual(service.pending().count, 2)
        XCTAssertEqual(service.take().count, 2)
        XCTAssertEqual(service.pending().count, 0)
    }

    /// 150,000 tuples (5.7 MB, more than the loopback socket buffers hold) to a peer that reads nothing and then resets: the write never
    /// completes, so every tuple is still pending; a reading peer then gets them all, and they are
    /// spent.
    func testAConnectionClosedBeforeTheWriteKeepsTheTuplesForTheNext() throws {
        let count = 150_000
        let events = ConnectionEventStore()
        let service = FeedbackService(
            listener: BinaryListenerConfiguration(kind: .feedback), asksForCertificates: false,
            registry: registry(count: count), events: events, nowMilliseconds: { 2_000_000 })
        let server = try start(service)
        defer { server.shutdown(timeout: 1) { $0.close() } }
        let port = server.boundAddresses[0].port

        let stalled = LoopbackSocket.connect(port: port, receiveBuffer: 4096)
        XCTAssertGreaterThan(stalled, 0)
        waitUntil { events.query(ConnectionEventFilter()).events.contains { $0.kind == .opened } }
        usleep(300_000)
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(stalled, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(stalled)
        waitUntil { events.query(ConnectionEventFilter()).events.contains { $0.kind == .closed } }
        XCTAssertEqual(server.openConnections, 0)
        XCTAssertEqual(service.pending().count, count, "nothing spent: the write never completed")
        XCTAssertFalse(events.query(ConnectionEventFilter()).events.contains { $0.kind == .feedbackSent })

        let reader = LoopbackSocket.connect(port: port)
        XCTAssertGreaterThan(reader, 0)
        XCTAssertEqual(readAll(reader), count * 38, "timestamp u32, length u16, 32-byte token each")
        close(reader)
        waitUntil { events.query(ConnectionEventFilter()).events.filter { $0.kind == .closed }.count == 2 }
        XCTAssertEqual(service.pending().count, 0, "spent once written")
        let sent = events.query(ConnectionEventFilter()).events.filter { $0.kind == .feedbackSent }
        XCTAssertEqual(sent.count, 1)
        if case .feedbackSent(let tuples, _)? = sent.first?.action { XCTAssertEqual(tuples, count) }
    }
}
