import Foundation
import JSONInput
import JSONSupport

/// One fault injection rule: which pushes (`match`), for how long (`lifetime`), and what to do
/// (`action`) (issue "Fault injection"; docs/field-cases.md C1-C16). Rules are kept in order by a
/// `FaultEngine`; the first that matches a push applies.
///
/// JSON (the control API's and the configuration file's `faults` entries):
/// ```json
/// {"id": "outage", "description": "APNs down for a minute",
///  "match": {"topic": "com.example.app"},
///  "lifetime": {"until": "2026-11-30T09:00:00Z"},
///  "action": {"type": "respond", "status": 503, "reason": "ServiceUnavailable"}}
/// ```
/// Only `action` is required: `id` is assigned (`f1`, `f2`, ...) when absent, `match`
/// defaults to every push, `lifetime` to `"unlimited"`. Unknown keys are refused.
public struct FaultRule: Sendable, Equatable, Codable {
    /// Letters, digits, `.`, `_`, `-`, at most 64 characters; nil until the engine assigns one.
    public var id: String?
    public var match: FaultMatch
    public var lifetime: FaultLifetime
    public var action: FaultAction
    /// Free text shown in listings.
    public var description: String?

    public init(
        id: String? = nil, match: FaultMatch = FaultMatch(), lifetime: FaultLifetime = .unlimited,
        action: FaultAction, description: String? = nil
    ) {
        self.id = id
        self.match = match
        self.lifetime = lifetime
        self.action = action
        self.description = description
    }

    /// Checks every field, as decoding does; for rules built in code. Field paths are relative
    /// to the rule, e.g. `action.status`.
    public func validate() throws(FaultRuleError) { try validate(at: "") }

    /// `validate()` with field paths under `path`, e.g. `faults[0]`.
    package func validate(at path: String) throws(FaultRuleError) {
        if let id {
            guard !id.isEmpty, id.count <= FaultLimits.maxIDLength,
                id.unicodeScalars.allSatisfy({
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
                })
            else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "id"),
                    message: "must be 1 to \(FaultLimits.maxIDLength) "
                        + "letters, digits, '.', '_' or '-', got \(InputError.quoted(id))")
            }
        }
        try match.validate(at: FaultRuleError.join(path, "match"))
        try lifetime.validate(at: FaultRuleError.join(path, "lifetime"))
        try action.validate(at: FaultRuleError.join(path, "action"))
        if match.transport == .binary && !action.hasBinaryMeaning {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "action.type"),
                message: "a rule matching protocol binary takes respond (an error packet), close, reset, or delay "
                    + "(a fixed ms) then one of them; \(action.typeName) has no meaning on the legacy binary protocol "
                    + "(docs/legacy-binary.md)")
        }
    }

    /// Decodes one rule from JSON bytes; every failure, syntax included, is a `FaultRuleError`.
    public static func decode(json bytes: [UInt8]) throws(FaultRuleError) -> FaultRule {
        try decodeJSON(FaultRule.self, from: bytes)
    }

    /// Decodes an array of rules from JSON bytes (the configuration file's `faults`).
    public static func decodeList(json bytes: [UInt8]) throws(FaultRuleError) -> [FaultRule] {
        try decodeJSON([FaultRule].self, from: bytes)
    }

    /// `type` read by `StrictJSONDecoder` (strict JSON, unknown keys refused), its errors as
    /// `FaultRuleError`s.
    private static func decodeJSON<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(FaultRuleError) -> T {
        do {
            return try StrictJSONDecoder().decode(T.self, from: bytes)
        } catch {
            throw FaultRuleError(error)
        }
    }

    /// Decodes one rule from a value already parsed (a configuration file's `faults` entry),
    /// through the same decoder as `decode(json:)`; field paths are relative to the rule.
    public static func decode(node: JSONNode) throws(FaultRuleError) -> FaultRule {
        do {
            return try StrictJSONDecoder().decode(FaultRule.self, from: node)
        } catch {
            throw FaultRuleError(error)
        }
    }

    private static let keys = ["id", "match", "lifetime", "action", "description"]

    public init(from decoder: any Decoder) throws {
        let object = try FaultObjectReader(decoder, keys: Self.keys)
        id = try object.optional("id", String.self, expected: "a string")
        match = try object.optional("match", FaultMatch.self, expected: "an object of conditions") ?? FaultMatch()
        lifetime =
            try object.optional("lifetime", FaultLifetime.self, expected: "\"unlimited\" or {\"times\": N}")
            ?? .unlimited
        action = try object.required("action", FaultAction.self, expected: "an action object with a \"type\"")
        description = try object.optional("description", String.self, expected: "a string")
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        try container.encodeIfPresent(id, forKey: FaultCodingKey("id"))
        try container.encode(match, forKey: FaultCodingKey("match"))
        try container.encode(lifetime, forKey: FaultCodingKey("lifetime"))
        try container.encode(action, forKey: FaultCodingKey("action"))
        try container.encodeIfPresent(description, forKey: FaultCodingKey("description"))
    }
}
