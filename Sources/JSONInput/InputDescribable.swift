/// A type that words what input it takes, for messages about a missing or `null` value, e.g.
/// `port: missing; expected an integer`. Strings, booleans, numbers, arrays, dictionaries,
/// optionals and `ISO8601Timestamp` conform; a model conforms to word itself (`"an action
/// object with a \"type\""`). Types that do not conform are reported as `missing (required)`.
public protocol InputDescribable {
    /// What the input is, as it reads after "expected": `"a string"`, `"an object of conditions"`.
    static var inputExpectation: String { get }
}

extension String: InputDescribable { public static var inputExpectation: String { "a string" } }
extension Bool: InputDescribable { public static var inputExpectation: String { "true or false" } }
extension Int: InputDescribable { public static var inputExpectation: String { InputWording.integer(Int.self) } }
extension Int8: InputDescribable { public static var inputExpectation: String { InputWording.integer(Int8.self) } }
extension Int16: InputDescribable { public static var inputExpectation: String { InputWording.integer(Int16.self) } }
extension Int32: InputDescribable { public static var inputExpectation: String { InputWording.integer(Int32.self) } }
extension Int64: InputDescribable { public static var inputExpectation: String { InputWording.integer(Int64.self) } }
extension UInt: InputDescribable { public static var inputExpectation: String { InputWording.integer(UInt.self) } }
extension UInt8: InputDescribable { public static var inputExpectation: String { InputWording.integer(UInt8.self) } }
extension UInt16: InputDescribable { public static var inputExpectation: String { InputWording.integer(UInt16.self) } }
extension UInt32: InputDescribable { public static var inputExpectation: String { InputWording.integer(UInt32.self) } }
extension UInt64: InputDescribable { public static var inputExpectation: String { InputWording.integer(UInt64.self) } }
extension Double: InputDescribable { public static var inputExpectation: String { "a number" } }
extension Float: InputDescribable { public static var inputExpectation: String { "a number" } }
extension Array: InputDescribable { public static var inputExpectation: String { "an array" } }
extension Dictionary: InputDescribable { public static var inputExpectation: String { "an object" } }
extension Optional: InputDescribable {
    public static var inputExpectation: String {
        ((Wrapped.self as? any InputDescribable.Type)?.inputExpectation ?? "a value") + " or null"
    }
}

/// The wording of ranges in messages, shared by the decoder and the range helpers.
public enum InputWording {
    /// `an integer`, `an integer from 1 to 65535`, `an integer of at least 1` (upper bound is
    /// the type's maximum) or `an integer of at most 9` (lower bound is the type's minimum).
    public static func integer<T: FixedWidthInteger>(in range: ClosedRange<T>) -> String {
        switch (range.lowerBound == T.min, range.upperBound == T.max) {
        case (true, true): return "an integer"
        case (false, true): return "an integer of at least \(range.lowerBound)"
        case (true, false): return "an integer of at most \(range.upperBound)"
        case (false, false): return "an integer from \(range.lowerBound) to \(range.upperBound)"
        }
    }

    /// `integer(in: T.min...T.max)` for 64-bit types (`an integer`); smaller and unsigned
    /// types name their bounds (`an integer from 0 to 4294967295`).
    public static func integer<T: FixedWidthInteger>(_ type: T.Type) -> String {
        T.bitWidth >= 64 && T.isSigned ? "an integer" : "an integer from \(T.min) to \(T.max)"
    }

    /// `a number from 0 to 3600` (bounds written as integers when they are whole).
    public static func number<T: BinaryFloatingPoint>(in range: ClosedRange<T>) -> String {
        "a number from \(number(Double(range.lowerBound))) to \(number(Double(range.upperBound)))"
    }

    /// `3600` for 3600.0, `0.5`, `1e+30`.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }
}
