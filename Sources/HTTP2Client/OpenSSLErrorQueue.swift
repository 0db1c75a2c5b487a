import COpenSSL

/// Reads OpenSSL's thread-local error queue into text.
enum OpenSSLErrorQueue {
    /// The reason of the earliest queued error (e.g. "certificate verify failed"), or nil when
    /// the queue is empty; clears the queue.
    static func drain() -> String? {
        var first: String?
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            guard first == nil else { continue }
            if let reason = ERR_reason_error_string(code) {
                first = String(cString: reason)
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return first
    }
}
