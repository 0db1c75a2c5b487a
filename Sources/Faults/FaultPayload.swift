import Foundation
import JSONInput
import JSONSupport

/// A request body as fault rules see it: parsed once, lazily, and only when a rule with payload
/// conditions gets that far (parsing costs more than all other conditions together).
struct FaultPayload {
    private let bytes: [UInt8]
    private var parsed: Any??

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether `condition` holds; a body that is not JSON satisfies only `absent`.
    mutating func satisfies(_ condition: PayloadCondition) -> Bool {
        let value = lookup(condition.segments)
        switch condition.test {
        case .present: return value != nil
        case .absent: return value == nil
        case .equals(let expected): return value.map { Self.equal($0, expected) } ?? false
        }
    }

    /// The value at `segments`, nil when the body is not JSON or the path leads nowhere.
    private mutating func lookup(_ segments: [Substring]) -> Any? {
        if parsed == nil {
            parsed = .some(try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
        }
        guard var current = parsed ?? nil else { return nil }
        for segment in segments {
            if let object = current as? [String: Any], let next = object[String(segment)] {
                current = next
            } else if let array = current as? [Any], let index = Int(segment), array.indices.contains(index) {
                current = array[index]
            } else {
                return nil
            }
        }
        return current
    }

    // JSONSerialization gives booleans as a distinct NSNumber subclass; `is Bool` is true for 0
    // and 1 too on Linux, so the class is compared instead.
    private static let booleanType = ObjectIdentifier(type(of: NSNumber(value: true)))

    private static func isBoolean(_ value: Any) -> Bool {
        value is NSNumber && ObjectIdentifier(type(of: value)) == booleanType
    }

    /// JSON equality of a parsed value and an expected one: numbers by value, objects by keys.
    static func equal(_ value: Any, _ expected: JSONNode) -> Bool {
        switch expected {
        case .null:
            return value is NSNull
        case .bool(let flag):
            return isBoolean(value) && (value as! NSNumber).boolValue == flag
        case .int, .uint, .double:
            guard let number = value as? NSNumber, !isBoolean(value) else { return false }
            return Number(number).equals(Number(expected))
        case .string(let text):
            return (value as? String) == text
        case .array(let items):
            guard let array = value as? [Any], array.count == items.count else { return false }
            return zip(array, items).allSatisfy { equal($0, $1) }
        case .object(let members):
            guard let object = value as? [String: Any], object.count == members.count else { return false }
            return members.allSatisfy { key, item in object[key].map { equal($0, item) } ?? false }
        }
    }

    /// A JSON number kept exact when it is an integer.
    private enum Number {
        case int(Int64), uint(UInt64), double(Double)

        init(_ number: NSNumber) {
            switch String(cString: number.objCType) {
            case "d", "f": self = .double(number.doubleValue)
            case "Q": self = .uint(number.uint64Value)
            default: self = .int(number.int64Value)
            }
        }

        init(_ json: JSONNode) {
            switch json {
            case .int(let value): self = .int(value)
            case .uint(let value): self = .uint(value)
            case .double(let value): self = .double(value)
            default: self = .double(.nan)
            }
        }

        var asDouble: Double {
            switch self {
            case .int(let value): return Double(value)
            case .uint(let value): return Double(value)
            case .double(let value): return value
            }
        }

        func equals(_ other: Number) -> Bool {
            switch (self, other) {
            case let (.int(a), .int(b)): return a == b
            case let (.uint(a), .uint(b)): return a == b
            case let (.int(a), .uint(b)), let (.uint(b), .int(a)): return a >= 0 && UInt64(a) == b
            default: return asDouble == other.asDouble
            }
        }
    }
}
