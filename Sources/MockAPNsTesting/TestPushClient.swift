import Foundation
import HTTP2Client
import HTTPFields
import MockAPNs

/// An HTTP/2 client for Swift tests that sends pushes to an in-process `MockAPNsServer` and
/// trusts its listener's certificate (URLSession on Linux cannot trust a custom CA): the
/// repository's `HTTP2ClientConnection` (nghttp2 and OpenSSL, blocking), connected once and
/// reused. Not thread-safe: one client per task.
public final class TestPushClient {
    /// The connection; `send` on it for many requests at once.
    public let connection: HTTP2ClientConnection
    /// The PEM file of the listener's certificate, written for OpenSSL to trust; removed by `close`.
    private let trustFile: URL?

    /// Connects to `server`'s listener number `listener` (its certificate trusted; a cleartext
    /// listener needs none).
    /// - Throws: `HTTP2ClientError` when the connection or handshake fails; `CocoaError` when
    ///   the certificate cannot be written to the temporary directory.
    public init(server: MockAPNsServer, listener: Int = 0, timeout: Double = 10) throws {
        let bound = server.listeners[listener]
        var tls = HTTP2ClientTLSOptions()
        var trustFile: URL?
        if bound.tls, let pem = server.certificatePEM(listener: listener) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "mock-apns-\(UUID().uuidString).pem")
            try Data(pem.utf8).write(to: file)
            tls.caCertificatePath = file.path
            trustFile = file
        }
        do {
            connection = try HTTP2ClientConnection.connect(url: bound.url, tls: tls, timeout: timeout)
        } catch {
            if let trustFile { try? FileManager.default.removeItem(at: trustFile) }
            throw error
        }
        self.trustFile = trustFile
    }

    deinit { close() }

    /// Sends one push to `/3/device/<token>` with `apns-topic`, `apns-push-type` (unless nil)
    /// and any other `headers`, and waits for its answer (`timeout` seconds without a byte).
    public func push(
        token: String, topic: String?, pushType: String? = "alert", payload: String = #"{"aps":{"alert":"hi"}}"#,
        headers: [HeaderField] = [], timeout: Double = 10
    ) -> HTTP2ClientResult {
        var fields = headers
        if let topic { fields.append(HeaderField(name: "apns-topic", value: topic)) }
        if let pushType { fields.append(HeaderField(name: "apns-push-type", value: pushType)) }
        return connection.send(
            [HTTP2ClientRequest(path: "/3/device/\(token)", headers: fields, body: Array(payload.utf8))],
            timeout: timeout)[0]
    }

    /// Closes the connection and removes the trusted certificate's file.
    public func close() {
        connection.close()
        if let trustFile { try? FileManager.default.removeItem(at: trustFile) }
    }
}
