import JSONInput

// Models as the project's callers will write them: wire names in `CodingKeys`, Swift names
// with `ID` (`ruleID` ↔ "ruleId"), ranges through `decode(_:forKey:in:)`.

enum Environment: String, Decodable, CaseIterable, Equatable {
    case sandbox, production
}

struct Listener: Decodable, Equatable {
    var name: String?
    var port: Int
    var plaintext: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, port, plaintext
    }

    init(name: String? = nil, port: Int, plaintext: Bool? = nil) {
        self.name = name
        self.port = port
        self.plaintext = plaintext
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        port = try container.decode(Int.self, forKey: .port, in: 1...65535)
        plaintext = try container.decodeIfPresent(Bool.self, forKey: .plaintext)
    }
}

/// A configuration file's shape, decoded by the synthesized `init(from:)`.
struct Settings: Decodable, Equatable {
    var listeners: [Listener]?
    var environment: Environment?
    var deviceID: String?

    enum CodingKeys: String, CodingKey {
        case listeners, environment
        case deviceID = "deviceId"
    }
}

/// A `"type"`-discriminated object: the keys it reads depend on the type, so the fields of
/// another type are unknown keys.
enum Action: Decodable, Equatable {
    case respond(status: Int, reason: String?)
    case delay(milliseconds: Int64, then: Box?)

    final class Box: Decodable, Equatable {
        let action: Action
        init(from decoder: any Decoder) throws { action = try Action(from: decoder) }
        static func == (a: Box, b: Box) -> Bool { a.action == b.action }
    }

    enum CodingKeys: String, CodingKey {
        case type, status, reason, ms, then
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "respond":
            self = .respond(
                status: try container.decode(Int.self, forKey: .status, in: 400...599),
                reason: try container.decodeIfPresent(String.self, forKey: .reason))
        case "delay":
            self = .delay(
                milliseconds: try container.decode(Int64.self, forKey: .ms, in: 0...60_000),
                then: try container.decodeIfPresent(Box.self, forKey: .then))
        default:
            throw InputError(
                at: container.codingPath + [CodingKeys.type],
                "unknown action \(InputError.quoted(type))\(ClosestMatch.hint(type, among: ["respond", "delay"]))")
        }
    }
}

struct Rule: Decodable, Equatable {
    var ruleID: String?
    var action: Action

    enum CodingKeys: String, CodingKey {
        case ruleID = "ruleId"
        case action
    }
}

struct RuleList: Decodable, Equatable {
    var faults: [Rule]
}

/// One field of each kind, for type mismatch messages.
struct Kinds: Decodable {
    var s: String?
    var b: Bool?
    var i: Int?
    var u8: UInt8?
    var u32: UInt32?
    var u64: UInt64?
    var d: Double?
    var f: Float?
    var a: [Int]?
    var o: [String: Int]?
    var e: Environment?
}

struct Required: Decodable {
    var name: String
    var count: Int
}

/// Reads a nested object through `nestedContainer`, without a type of its own.
struct Nested: Decodable {
    var inner: Int

    enum CodingKeys: String, CodingKey { case outer }
    enum InnerKeys: String, CodingKey { case inner }

    init(from decoder: any Decoder) throws {
        let outer = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(
            keyedBy: InnerKeys.self, forKey: .outer)
        inner = try outer.decode(Int.self, forKey: .inner)
    }
}

struct Empty: Decodable {}
