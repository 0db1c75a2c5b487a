import ControlAPI
import Dispatch
import HTTP2Client
import HTTPFields

/// `POST /v1/send`'s sender (docs/console.md): one HTTP/2 connection per push from this process
/// to its own APNs listener, on a thread of its `SendPool` (the blocking client never runs on the
/// control loop, nor on Dispatch's shared threads): at most 32 sends at once and 32 more queued
/// (`SendPool.shared`), the rest refused at once (429). A send has `timeout` seconds from when it
/// was handed over, time queued included: 10 s at most to connect, the rest for the answer. The
/// listener's certificate is not verified: the connection goes to the address this server bound
/// itself, and a listener may use an ephemeral self-signed certificate. A wildcard address
/// (`0.0.0.0`, `::`) is reached over loopback.
final class ListenerPushSender: PushSender {
    /// A listener by name and where it is bound.
    struct Target: Sendable {
        var name: String
        var endpoint: HTTP2Endpoint
    }

    /// The listeners, in configuration order, as bound now (an isolated gateway's listener is
    /// bound after its control API is made; empty until then).
    var targets: [Target] { resolveTargets() }
    private let resolveTargets: @Sendable () -> [Target]
    /// The threads sends run on.
    let pool: SendPool
    /// Seconds a send has from when it was handed over until its answer, queueing included.
    let timeout: Double

    /// Seconds allowed to connect, and to wait for the answer: together the default `timeout`,
    /// under `SendTicket.timeoutMilliseconds` (the control API's own wait).
    static let connectTimeout = 10.0
    static let answerTimeout = 30.0

    /// A sender to `targets`, on `pool`, each send given `timeout` seconds.
    init(
        targets: [Target], pool: SendPool = .shared, timeout: Double = connectTimeout + answerTimeout
    ) {
        resolveTargets = { targets }
        self.pool = pool
        self.timeout = timeout
    }

    /// The targets for the listeners as bound.
    convenience init(
        listeners: [MockAPNsServer.BoundListener], pool: SendPool = .shared,
        timeout: Double = connectTimeout + answerTimeout
    ) {
        self.init(listing: { listeners }, pool: pool, timeout: timeout)
    }

    /// The targets for the listeners `listing` gives when a push is sent: an isolated gateway's
    /// own listener (docs/console.md §5), bound after its control API is made.
    init(
        listing: @escaping @Sendable () -> [MockAPNsServer.BoundListener], pool: SendPool = .shared,
        timeout: Double = connectTimeout + answerTimeout
    ) {
        resolveTargets = { listing().map(Self.target(for:)) }
        self.pool = pool
        self.timeout = timeout
    }

    /// The target for one bound listener; a wildcard address is reached over loopback.
    static func target(for listener: MockAPNsServer.BoundListener) -> Target {
        let host: String
        switch listener.host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::", "[::]": host = "::1"
        default: host = listener.host
        }
        return Target(
            name: listener.name, endpoint: HTTP2Endpoint(secure: listener.tls, host: host, port: listener.port))
    }

    var listenerNames: [String]? { targets.map(\.name) }

    func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void) {
        let targets = self.targets
        guard let target = push.listener.map({ name in targets.first { $0.name == name } }) ?? targets.first else {
            let names = targets.map(\.name).joined(separator: ", ")
            completion(ComposedPushAnswer(error: "no listener named \(push.listener ?? "") (listeners: \(names))"))
            return
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        let timeout = self.timeout
        let pool = self.pool
        let accepted = pool.submit {
            completion(Self.send(push, to: target.endpoint, deadline: deadline, timeout: timeout))
        }
        if !accepted {
            completion(
                .busy(
                    "too many sends in flight: \(pool.maxRunning) sending and \(pool.maxQueued) queued, the most "
                        + "POST /v1/send holds; nothing was sent, retry later"))
        }
    }

    /// Sends `push` and waits for its answer until `deadline` (`timeout` seconds after the send
    /// was handed over, for messages); blocking.
    static func send(
        _ push: ComposedPush, to endpoint: HTTP2Endpoint, deadline: ContinuousClock.Instant,
        timeout: Double = connectTimeout + answerTimeout
    ) -> ComposedPushAnswer {
        func remaining() -> Double {
            let left = ContinuousClock.now.duration(to: deadline).components
            return Double(left.seconds) + Double(left.attoseconds) / 1e18
        }
        let timedOut = ComposedPushAnswer(
            error: "no answer within \(Self.seconds(timeout)) s of the send (time waiting for a free sender included)")
        guard remaining() > 0 else { return timedOut }
        let connection: HTTP2ClientConnection
        do {
            connection = try HTTP2ClientConnection.connect(
                to: endpoint, tls: HTTP2ClientTLSOptions(insecure: true), timeout: min(connectTimeout, remaining()))
        } catch {
            return ComposedPushAnswer(error: "could not connect to \(endpoint): \(error)")
        }
        defer { connection.close() }
        let left = remaining()
        guard left > 0 else { return timedOut }
        let request = HTTP2ClientRequest(path: push.path, headers: push.headers, body: push.payload)
        guard let result = connection.send([request], timeout: left).first else {
            return ComposedPushAnswer(error: "the request was not sent")
        }
        switch result.outcome {
        case .response(let response):
            return ComposedPushAnswer(status: response.status, headers: response.headers, body: response.body)
        case .streamReset(let code):
            return ComposedPushAnswer(error: "the listener reset the stream (\(code))")
        case .failed(let error):
            return remaining() <= 0 ? timedOut : ComposedPushAnswer(error: "no answer: \(error)")
        }
    }

    /// `seconds` for a message: `40`, or `2.5`.
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
