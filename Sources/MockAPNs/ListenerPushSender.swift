import ControlAPI
import Dispatch
import HTTP2Client
import HTTPFields

/// `POST /v1/send`'s sender (docs/console.md): one HTTP/2 connection per push from this process
/// to its own APNs listener, on a background queue (the blocking client never runs on the
/// control loop). The listener's certificate is not verified: the connection goes to the
/// address this server bound itself, and a listener may use an ephemeral self-signed
/// certificate. A wildcard address (`0.0.0.0`, `::`) is reached over loopback.
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
    private let queue = DispatchQueue(label: "mock-apns.console-send", attributes: .concurrent)

    /// Seconds allowed to connect, and to wait for the answer.
    static let connectTimeout = 10.0
    static let answerTimeout = 30.0

    init(targets: [Target]) {
        resolveTargets = { targets }
    }

    /// The targets for the listeners as bound.
    convenience init(listeners: [MockAPNsServer.BoundListener]) {
        self.init(listing: { listeners })
    }

    /// The targets for the listeners `listing` gives when a push is sent: an isolated gateway's
    /// own listener (docs/console.md §5), bound after its control API is made.
    init(listing: @escaping @Sendable () -> [MockAPNsServer.BoundListener]) {
        resolveTargets = { listing().map(Self.target(for:)) }
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
        queue.async {
            completion(Self.send(push, to: target.endpoint))
        }
    }

    /// Sends `push` and waits for its answer; blocking.
    static func send(_ push: ComposedPush, to endpoint: HTTP2Endpoint) -> ComposedPushAnswer {
        let connection: HTTP2ClientConnection
        do {
            connection = try HTTP2ClientConnection.connect(
                to: endpoint, tls: HTTP2ClientTLSOptions(insecure: true), timeout: connectTimeout)
        } catch {
            return ComposedPushAnswer(error: "could not connect to \(endpoint): \(error)")
        }
        defer { connection.close() }
        let request = HTTP2ClientRequest(path: push.path, headers: push.headers, body: push.payload)
        guard let result = connection.send([request], timeout: answerTimeout).first else {
            return ComposedPushAnswer(error: "the request was not sent")
        }
        switch result.outcome {
        case .response(let response):
            return ComposedPushAnswer(status: response.status, headers: response.headers, body: response.body)
        case .streamReset(let code):
            return ComposedPushAnswer(error: "the listener reset the stream (\(code))")
        case .failed(let error):
            return ComposedPushAnswer(error: "no answer: \(error)")
        }
    }
}
