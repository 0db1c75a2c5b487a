import COpenSSL

/// OpenSSL's thread-local error queue as text: the one reader of it for the transport, the client
/// and provider authentication. Every function empties the queue, so a later failure on the same
/// thread does not report an old error.
public enum OpenSSLErrorQueue {
    /// The queued errors, oldest first, each as OpenSSL's full line
    /// (`error:0A000086:SSL routines::certificate verify failed`); empty when nothing was queued.
    public static func drainLines() -> [String] {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0 { lines.append(line(code)) }
        return lines
    }

    /// The reason of the oldest queued error alone (`certificate verify failed`), or its full line
    /// when OpenSSL has no reason text for it; nil when nothing was queued.
    public static func drain() -> String? {
        var first: String?
        while case let code = ERR_get_error(), code != 0 {
            guard first == nil else { continue }
            first = ERR_reason_error_string(code).map { String(cString: $0) } ?? line(code)
        }
        return first
    }

    /// `context`, then `: ` and the oldest queued error's full line when there is one; empties the
    /// queue.
    public static func describe(_ context: String) -> String {
        drainLines().first.map { "\(context): \($0)" } ?? context
    }

    private static func line(_ code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
