import COpenSSL
import SystemSupport

/// A key, certificate or key manifest that could not be loaded. The message names the file or
/// field and, for OpenSSL failures, OpenSSL's own error text.
public struct AuthMaterialError: Error, CustomStringConvertible, Hashable {
    /// What went wrong, in words.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }

    /// An error carrying `context` and the texts on OpenSSL's error queue, which it empties.
    static func openSSL(_ context: String) -> AuthMaterialError {
        let texts = OpenSSLErrorQueue.drainLines()
        return AuthMaterialError(texts.isEmpty ? context : "\(context): \(texts.joined(separator: "; "))")
    }
}
