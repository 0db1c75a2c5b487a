import ControlAPI
import Faults
import Foundation
import HTTPFields
import Synchronization
import XCTest

@testable import MockAPNs

/// `ListenerPushSender` (docs/console.md §5): `POST /v1/send`'s pushes go over HTTP/2 to the
/// server's own listener, off the caller's thread, and come back with the listener's answer.
final class ListenerPushSenderTests: XCTestCase {
    private let token = String(repeating: "cd", count: 32)

    private func makeServer() throws -> MockAPNsServer {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = nil
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }

    /// `push` sent and its answer; `offCaller`: the answer must come from another thread (an
    /// unknown listener is answered at once, without a connection).
    private func send(_ sender: ListenerPushSender, _ push: ComposedPush, offCaller: Bool = true) -> ComposedPushAnswer?
    {
        let done = expectation(description: "answered")
        let answer = SendTicketBox()
        sender.send(push) { value in
            // XCTest runs the test on the main thread.
            answer.set(value, onCallerThread: Thread.isMainThread)
            done.fulfill()
        }
        wait(for: [done], timeout: 15)
        if offCaller {
            XCTAssertEqual(answer.onCallerThread, false, "the client must not run on the caller's thread")
        }
        return answer.value
    }

    func testAPushReachesTheListenerAndItsAnswerComesBack() throws {
        let server = try makeServer()
        defer { server.stop() }
        let sender = ListenerPushSender(listeners: server.listeners)
        let push = ComposedPush(
            listener: nil, token: token,
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "alert"),
            ],
            payload: Array(#"{"aps":{"alert":"from the console"}}"#.utf8))
        let answer = try XCTUnwrap(send(sender, push))
        XCTAssertEqual(answer.status, 200, "\(answer)")
        XCTAssertNil(answer.error)
        let record = try XCTUnwrap(server.deliveries(matching: DeliveryFilter(token: token)).last)
        XCTAssertEqual(answer.headers.first { $0.name == "apns-id" }?.value, record.apnsID)
        XCTAssertEqual(record.payload, push.payload)

        var rejected = push
        rejected.headers = [HeaderField(name: "apns-push-type", value: "alert")]
        let missingTopic = try XCTUnwrap(send(sender, rejected))
        XCTAssertEqual(missingTopic.status, 400)
        XCTAssertEqual(String(decoding: missingTopic.body, as: UTF8.self), #"{"reason":"MissingTopic"}"#)
    }

    /// An isolated gateway's control API has a sender for its own listener (`POST /v1/send` under
    /// its `controlBase`): the push lands in the gateway's records, not the default gateway's.
    func testAnIsolatedGatewaysSenderPushesToItsOwnListener() throws {
        let server = try makeServer()
        defer { server.stop() }
        let gateway = try server.createGateway(GatewayOptions(name: "suite-a"))
        let sender = try XCTUnwrap(gateway.sender)
        XCTAssertEqual(sender.targets.map { $0.name }, ["suite-a"])
        XCTAssertEqual(sender.targets.first?.endpoint.port, gateway.port)
        let push = ComposedPush(
            listener: nil, token: token,
            headers: [HeaderField(name: "apns-topic", value: "com.example.app")],
            payload: Array(#"{"aps":{"alert":"to a gateway"}}"#.utf8))
        let answer = try XCTUnwrap(send(sender, push))
        XCTAssertEqual(answer.status, 200, "\(answer)")
        XCTAssertEqual(gateway.store.query(DeliveryFilter(), limit: nil).deliveries.count, 1)
        XCTAssertEqual(server.deliveries(matching: DeliveryFilter(token: token)).count, 0)
    }

    func testAnUnknownListenerOrAClosedPortSaysWhy() throws {
        let server = try makeServer()
        let sender = ListenerPushSender(listeners: server.listeners)
        let unknown = try XCTUnwrap(
            send(sender, ComposedPush(listener: "nope", token: token, headers: [], payload: []), offCaller: false))
        XCTAssertNil(unknown.status)
        XCTAssertEqual(unknown.error, "no listener named nope (listeners: \(server.listeners[0].name))")
        server.stop()
        let closed = try XCTUnwrap(send(sender, ComposedPush(listener: nil, token: token, headers: [], payload: [])))
        XCTAssertNil(closed.status)
        XCTAssertTrue(closed.error?.hasPrefix("could not connect to") == true, "\(closed)")
    }

    /// Sends held by a `delay` fault run on the sends' own pool: `maxRunning` at once, `maxQueued`
    /// more waiting, the rest refused at once (`busy`, which `POST /v1/send` answers 429); and a
    /// send's `timeout` counts from when it was handed over, queueing included (on Dispatch's
    /// shared pool, 100 sends held 15 s made 46 of them answer 504, each timed from when a thread
    /// took it).
    func testSendsHeldByADelayHaveTheirOwnBoundedPoolAndTimeOutFromTheirStart() throws {
        let server = try makeServer()
        defer { server.stop() }
        _ = try server.faults.add(FaultRule(action: .delay(milliseconds: 1500, then: nil)))
        let sender = ListenerPushSender(
            listeners: server.listeners, pool: SendPool(maxRunning: 4, maxQueued: 4), timeout: 2.5)
        let push = ComposedPush(
            listener: nil, token: token, headers: [HeaderField(name: "apns-topic", value: "com.example.app")],
            payload: Array(#"{"aps":{"alert":"held"}}"#.utf8))
        let answers = Mutex<[(answer: ComposedPushAnswer, seconds: Double)]>([])
        let done = DispatchGroup()
        let start = Date()
        for _ in 0..<12 {
            done.enter()
            sender.send(push) { answer in
                answers.withLock { $0.append((answer, Date().timeIntervalSince(start))) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 15), .success)
        let all = answers.withLock { $0 }
        let refused = all.filter { $0.answer.busy }
        XCTAssertEqual(refused.count, 4, "\(all)")
        for (answer, seconds) in refused {
            XCTAssertLessThan(seconds, 0.5)
            XCTAssertNil(answer.status)
            XCTAssertTrue(
                answer.error?.hasPrefix("too many sends in flight: 4 sending and 4 queued") == true, "\(answer)")
        }
        let answered = all.filter { $0.answer.status == 200 }
        XCTAssertEqual(answered.count, 4, "\(all)")
        for (_, seconds) in answered { XCTAssertGreaterThanOrEqual(seconds, 1.4) }
        // The queued four start about 1.5 s in; their 2.5 s ran from the hand-over, not from then.
        let late = all.filter { !$0.answer.busy && $0.answer.status == nil }
        XCTAssertEqual(late.count, 4, "\(all)")
        for (answer, seconds) in late {
            XCTAssertEqual(answer.error, "no answer within 2.5 s of the send (time waiting for a free sender included)")
            XCTAssertGreaterThanOrEqual(seconds, 2.4)
            XCTAssertLessThan(seconds, 3.4, "timed from the hand-over, not from the start of its connection")
        }
    }

    func testAWildcardAddressIsReachedOverLoopback() {
        let listeners = [
            MockAPNsServer.BoundListener(name: "a", environment: .sandbox, host: "0.0.0.0", port: 1, tls: true),
            MockAPNsServer.BoundListener(name: "b", environment: .sandbox, host: "::", port: 2, tls: false),
            MockAPNsServer.BoundListener(name: "c", environment: .sandbox, host: "127.0.0.2", port: 3, tls: true),
        ]
        let targets = ListenerPushSender(listeners: listeners).targets
        XCTAssertEqual(targets.map(\.endpoint.host), ["127.0.0.1", "::1", "127.0.0.2"])
        XCTAssertEqual(targets.map(\.endpoint.secure), [true, false, true])
        XCTAssertEqual(targets.map(\.name), ["a", "b", "c"])
    }
}

/// The answer handed over from the sender's thread.
private final class SendTicketBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value: ComposedPushAnswer?
    private(set) var onCallerThread: Bool?
    func set(_ answer: ComposedPushAnswer, onCallerThread: Bool) {
        lock.lock()
        defer { lock.unlock() }
        value = answer
        self.onCallerThread = onCallerThread
    }
}
