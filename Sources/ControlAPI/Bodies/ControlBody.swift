import JSONInput
import JSONSupport

/// Reads control-API request bodies: strict JSON (`StrictJSONDecoder`, RFC 8259) into a
/// `Decodable` model whose `CodingKeys` hold the wire names. Every refusal is a 400
/// `{"error": "..."}` naming the field:
///
/// - a field: the decoder's `path: message`, e.g. `colour: unknown key (did you mean
///   "color"?); valid keys here: ...` or `handshakeDelayMs: expected an integer from 0 to
///   600000, got -1`;
/// - malformed JSON: `the body is not valid JSON: line 1, column 2: ...; expected <form>`
///   (`... (it is empty); expected <form>` for an empty body);
/// - a body of the wrong kind: `body must be <form>: expected an object, got an array`.
///
/// `<form>` is the body's shape for a human, e.g. `a JSON object like {"offsetSeconds": 4000}`.
enum ControlBody {
    /// `type` decoded from `body`; a 400 as described on the type when it cannot be.
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], form: String) throws(ControlError) -> T {
        do {
            return try StrictJSONDecoder().decode(type, from: body)
        } catch {
            throw .badRequest(message(for: error, form: form))
        }
    }

    /// The message of a 400 for `error`, reading a body of shape `form`.
    static func message(for error: InputError, form: String) -> String {
        if let syntax = syntaxMessage(for: error, form: form) { return syntax }
        if error.path.isEmpty, error.message.hasPrefix("expected ") {
            return "body must be \(form): \(error.message)"
        }
        return error.description
    }

    /// The message for a body that is not JSON at all (empty, malformed, a key repeated), nil
    /// for any other error.
    static func syntaxMessage(for error: InputError, form: String) -> String? {
        if error.path.isEmpty, error.line == nil, error.message.hasPrefix("the document is empty") {
            return "the body is not valid JSON (it is empty); expected \(form)"
        }
        if error.line != nil || (error.path.isEmpty && error.message.hasPrefix("not valid JSON")) {
            return "the body is not valid JSON: \(error.description); expected \(form)"
        }
        return nil
    }
}
