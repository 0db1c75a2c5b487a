/// Numbers in closed ranges, checked once with one wording: `port: expected an integer from 1
/// to 65535, got "x"` (or `got 70000`), whatever came instead. For models' `init(from:)`:
///
/// ```swift
/// port = try container.decode(Int.self, forKey: .port, in: 1...65535)
/// drain = try container.decodeIfPresent(Double.self, forKey: .drainTimeoutSeconds, in: 0...3600) ?? 30
/// ```
///
/// Integers accept whole numbers written with a fraction or exponent (`2197.0`, `2.197e3`);
/// `1.5` is refused. A missing key reads `missing; expected an integer from 1 to 65535`.
/// Errors are `InputError`s with the field's path; under other decoders (Foundation's
/// `JSONDecoder`) the range is still checked, with the path from the coding path.
extension KeyedDecodingContainer {
    /// The integer at `key`, which must lie in `range`.
    public func decode<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key, in range: ClosedRange<T>)
        throws -> T
    {
        try rangeChecked(key, InputWording.integer(in: range)) { try decode(RawNode.self, forKey: key) }.integer(
            in: range)
    }

    /// The integer at `key` in `range`, or nil when the key is absent or `null`.
    public func decodeIfPresent<T: FixedWidthInteger & Decodable>(
        _ type: T.Type, forKey key: Key, in range: ClosedRange<T>
    ) throws -> T? {
        try decodeIfPresent(RawNode.self, forKey: key)?.integer(in: range)
    }

    /// The number at `key`, which must lie in `range` (so it is finite when the bounds are).
    public func decode<T: BinaryFloatingPoint & Decodable>(_ type: T.Type, forKey key: Key, in range: ClosedRange<T>)
        throws -> T
    {
        try rangeChecked(key, InputWording.number(in: range)) { try decode(RawNode.self, forKey: key) }.number(
            in: range)
    }

    /// The number at `key` in `range`, or nil when the key is absent or `null`.
    public func decodeIfPresent<T: BinaryFloatingPoint & Decodable>(
        _ type: T.Type, forKey key: Key, in range: ClosedRange<T>
    ) throws -> T? {
        try decodeIfPresent(RawNode.self, forKey: key)?.number(in: range)
    }

    /// `read`, with a missing key worded by what the range expects.
    private func rangeChecked(_ key: Key, _ expectation: String, _ read: () throws -> RawNode) throws -> RawNode {
        do {
            return try read()
        } catch var error as MissingKeyError {
            error.expectation = expectation
            throw error.inputError
        }
    }
}

extension SingleValueDecodingContainer {
    /// The integer this value is, which must lie in `range` (see `KeyedDecodingContainer`'s).
    public func decode<T: FixedWidthInteger & Decodable>(_ type: T.Type, in range: ClosedRange<T>) throws -> T {
        try decode(RawNode.self).integer(in: range)
    }

    /// The number this value is, which must lie in `range`.
    public func decode<T: BinaryFloatingPoint & Decodable>(_ type: T.Type, in range: ClosedRange<T>) throws -> T {
        try decode(RawNode.self).number(in: range)
    }
}

/// A value as parsed, with its path, for checks that word their own expectation. Under
/// `StrictJSONDecoder` it is handed the node directly; under another decoder it rebuilds one.
struct RawNode: Decodable {
    let node: JSONNode
    let path: String

    init(node: JSONNode, path: String) {
        self.node = node
        self.path = path
    }

    init(from decoder: any Decoder) throws {
        node = try JSONNode.Builder(from: decoder).node
        path = InputError.path(decoder.codingPath)
    }

    func integer<T: FixedWidthInteger>(in range: ClosedRange<T>) throws -> T {
        let value: T?
        switch node {
        case .int(let number): value = T(exactly: number)
        case .uint(let number): value = T(exactly: number)
        case .double(let number): value = number.isFinite ? T(exactly: number) : nil
        default: value = nil
        }
        guard let value, range.contains(value) else {
            throw InputError(path: path, message: "expected \(InputWording.integer(in: range)), got \(node.rendered)")
        }
        return value
    }

    func number<T: BinaryFloatingPoint>(in range: ClosedRange<T>) throws -> T {
        let value: Double?
        switch node {
        case .int(let number): value = Double(number)
        case .uint(let number): value = Double(number)
        case .double(let number): value = number
        default: value = nil
        }
        guard let value, range.contains(T(value)) else {
            throw InputError(path: path, message: "expected \(InputWording.number(in: range)), got \(node.rendered)")
        }
        return T(value)
    }
}
