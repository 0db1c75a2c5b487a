import APNsCore
import Foundation
import JSONInput

/// Writes a value parsed by `JSONSerialization` (the parser validation uses for push bodies)
/// through an `Encoder`'s nested containers, so a delivery record's `payload` and provider
/// token parts reach `JSONEncoder` without a `JSONNode` tree.
///
/// Why not `JSONNode(decoding:)`: `JSONDecoder` cannot say a value's type, so the tree is
/// built by guessing and catching a `typeMismatch` per wrong guess (about 20 µs for a 100-byte
/// payload against 5 µs here, release build on Linux), and a `JSONNode` is written through
/// one new encoder per value where nested containers need none.
///
/// Numbers come out as `JSONNode` writes them: an integral value that fits `Int64` as an
/// integer (`1.0` → `1`), any other as a `Double`. Objects are written with sorted keys by the
/// encoder; a key repeated in the body keeps its last value (`JSONSerialization`'s choice).
enum ParsedJSONEncoding {
    /// A key of a payload object.
    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Parses `bytes` as one JSON value of any type (`nil` when it is not JSON). The bytes are
    /// lent without a copy.
    static func parse(_ bytes: some Collection<UInt8>) -> Any? {
        let parsed = bytes.withContiguousStorageIfAvailable { buffer -> Any? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .none)
            return try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        }
        if let parsed { return parsed }
        let copy = Array(bytes)
        return copy.isEmpty ? nil : parse(copy)
    }

    /// Whether `value` is a JSON object.
    static func isObject(_ value: Any) -> Bool {
        PayloadInspector.kind(of: value) == .dictionary
    }

    /// Writes `value` under `key`.
    static func encode<K: CodingKey>(_ value: Any, forKey key: K, in container: inout KeyedEncodingContainer<K>) throws
    {
        switch PayloadInspector.kind(of: value) {
        case .string: try container.encode(value as! String, forKey: key)
        case .dictionary:
            var nested = container.nestedContainer(keyedBy: Key.self, forKey: key)
            try encodeMembers(value as! [String: Any], in: &nested)
        case .array:
            var nested = container.nestedUnkeyedContainer(forKey: key)
            try encodeItems(value as! [Any], in: &nested)
        case .boolean: try container.encode((value as! NSNumber).boolValue, forKey: key)
        case .number:
            switch Number(value as! NSNumber) {
            case .integer(let n): try container.encode(n, forKey: key)
            case .double(let d) where d.isFinite: try container.encode(d, forKey: key)
            case .double: try container.encodeNil(forKey: key)
            }
        case .null, .absent: try container.encodeNil(forKey: key)
        }
    }

    /// Writes `value` as the whole of `encoder`'s output.
    static func encode(_ value: Any, to encoder: any Encoder) throws {
        switch PayloadInspector.kind(of: value) {
        case .dictionary:
            var container = encoder.container(keyedBy: Key.self)
            try encodeMembers(value as! [String: Any], in: &container)
        case .array:
            var container = encoder.unkeyedContainer()
            try encodeItems(value as! [Any], in: &container)
        case .string:
            var container = encoder.singleValueContainer()
            try container.encode(value as! String)
        case .boolean:
            var container = encoder.singleValueContainer()
            try container.encode((value as! NSNumber).boolValue)
        case .number:
            var container = encoder.singleValueContainer()
            switch Number(value as! NSNumber) {
            case .integer(let n): try container.encode(n)
            case .double(let d) where d.isFinite: try container.encode(d)
            case .double: try container.encodeNil()
            }
        case .null, .absent:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }

    private static func encodeMembers(_ members: [String: Any], in container: inout KeyedEncodingContainer<Key>) throws
    {
        for (name, value) in members { try encode(value, forKey: Key(stringValue: name), in: &container) }
    }

    private static func encodeItems(_ items: [Any], in container: inout any UnkeyedEncodingContainer) throws {
        for value in items {
            switch PayloadInspector.kind(of: value) {
            case .string: try container.encode(value as! String)
            case .dictionary:
                var nested = container.nestedContainer(keyedBy: Key.self)
                try encodeMembers(value as! [String: Any], in: &nested)
            case .array:
                var nested = container.nestedUnkeyedContainer()
                try encodeItems(value as! [Any], in: &nested)
            case .boolean: try container.encode((value as! NSNumber).boolValue)
            case .number:
                switch Number(value as! NSNumber) {
                case .integer(let n): try container.encode(n)
                case .double(let d) where d.isFinite: try container.encode(d)
                case .double: try container.encodeNil()
                }
            case .null, .absent: try container.encodeNil()
            }
        }
    }

    /// A JSON number as `JSONNode` holds it.
    private enum Number {
        case integer(Int64)
        case double(Double)

        init(_ number: NSNumber) {
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "q"), UInt8(ascii: "l"), UInt8(ascii: "i"), UInt8(ascii: "s"):
                self = .integer(number.int64Value)
            case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
                let n = number.uint64Value
                self = n <= UInt64(Int64.max) ? .integer(Int64(n)) : .double(Double(n))
            default:
                let d = number.doubleValue
                self = Int64(exactly: d).map(Number.integer) ?? .double(d)
            }
        }
    }
}
