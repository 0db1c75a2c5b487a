import APNsCore
import JSONInput

extension KeyedDecodingContainer {
    /// The `reason` of a body that sends GOAWAY (`GoawayBody`, `DrainBody`): `absent` when the key
    /// is not there, nil for `null` (no debug data), else the string, refused where it is given
    /// when `{"reason":...}` would not fit one GOAWAY frame (`GoawayDebugDataLimit`): a GOAWAY that
    /// cannot be sent must not be recorded as sent.
    /// - Throws: `InputError` at the key: not a string or null, or too long.
    func goawayReason(forKey key: Key, absent: String?) throws -> String? {
        switch try decodeIfPresent(JSONNode.self, forKey: key) {
        case nil where contains(key): return nil
        case nil: return absent
        case .string(let text)?:
            if let problem = GoawayDebugDataLimit.problem(reason: text) {
                throw InputError(at: codingPath + [key], problem)
            }
            return text
        case let other?:
            throw InputError(at: codingPath + [key], "expected a string or null, got \(other.rendered)")
        }
    }
}
