/// A JSON value as the control API writes it, with its own encoder: Foundation's
/// `JSONSerialization` writer on Linux takes about 1 ms per delivery record (bridging to
/// `NSDictionary`), this one a few microseconds. Object members keep the order given and are
/// written without hashing or sorting; the control API gives them sorted by key (a dictionary
/// literal asserts that in debug builds). Slashes are not escaped; non-ASCII is raw UTF-8.
public enum ControlJSON: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer (sequence numbers, counters).
    case uint(UInt64)
    /// A floating-point number; integral values are written without a fraction, non-finite
    /// ones as `null`.
    case double(Double)
    /// A number literal as parsed, written back verbatim (so `1.0` and `1e400` survive).
    case number(String)
    /// A string, escaped as JSON requires.
    case string(String)
    /// An array.
    case array([ControlJSON])
    /// Members in the order written.
    case object([(key: String, value: ControlJSON)])

    /// An object from a literal, members in source order, which must be sorted by key.
    public init(dictionaryLiteral elements: (String, ControlJSON)...) {
        assert(zip(elements, elements.dropFirst()).allSatisfy { $0.0 < $1.0 }, "keys not sorted: \(elements.map(\.0))")
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }

    /// An object of `members` sorted by key.
    public static func sortedObject(_ members: [String: ControlJSON]) -> ControlJSON {
        .object(members.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// `value` as a string, or `null` when absent.
    static func string(_ value: String?) -> ControlJSON { value.map(ControlJSON.string) ?? .null }
    /// `value` as an integer, or `null` when absent.
    static func int(_ value: Int64?) -> ControlJSON { value.map(ControlJSON.int) ?? .null }

    /// The compact UTF-8 encoding.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    /// Appends the compact UTF-8 encoding to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let n): out.append(contentsOf: String(n).utf8)
        case .uint(let n): out.append(contentsOf: String(n).utf8)
        case .double(let d):
            if !d.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if d == d.rounded(), abs(d) < 1e15 {
                out.append(contentsOf: String(Int64(d)).utf8)  // 3.0 as 3, as JSON writers do
            } else {
                out.append(contentsOf: d.description.utf8)
            }
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        out.append(UInt8(ascii: "\""))
        // Through the contiguous UTF-8 buffer: iterating `String.UTF8View` was most of the cost.
        s.withUTF8 { utf8 in
            // Most strings need no escaping: copy them whole.
            guard utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                out.append(contentsOf: utf8)
                return
            }
            let hex: StaticString = "0123456789abcdef"
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0..<0x20:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30,
                                            hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0xF)]])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Parses `bytes` as one JSON value of any type (RFC 8259, strict, valid UTF-8 only);
    /// `nil` when not JSON. Members keep their order and numbers their literal text.
    public static func parse(_ bytes: [UInt8]) -> ControlJSON? {
        ControlJSONParser.parse(bytes)
    }

    /// The first member `key` of an object; `nil` for other values or a missing key.
    public subscript(key: String) -> ControlJSON? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    /// Structural equality; member order matters, and `.number("1")` is not `.int(1)`.
    public static func == (lhs: ControlJSON, rhs: ControlJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.uint(a), .uint(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
