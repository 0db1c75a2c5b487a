/// A coding key the decoder makes for array positions (`Index 3`, as Foundation's) and for
/// object keys it reports itself.
struct NodeKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) { self.stringValue = stringValue }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(intValue: Int) { self.init(index: intValue) }
}

/// The keys of one JSON object as the model asked for them.
final class KeyLog {
    let members: [String: JSONNode]
    /// Keys the model named in any way (`contains` included), in the order first named: the
    /// valid keys listed in an unknown-key message.
    private(set) var known: [String] = []
    private var knownSet: Set<String> = []
    /// Keys the model read (decoded, tested for null, or opened a container or decoder on).
    private(set) var consumed: Set<String> = []

    init(members: [String: JSONNode]) { self.members = members }

    func know(_ key: String) {
        if knownSet.insert(key).inserted { known.append(key) }
    }

    func know(_ keys: [String]) { keys.forEach(know) }

    func consume(_ key: String) {
        know(key)
        consumed.insert(key)
    }

    /// Present keys the model did not read, sorted so errors are the same from run to run.
    var unread: [String] { members.keys.filter { !consumed.contains($0) }.sorted() }

    /// The error for `key`, present and unread: `unknown key (did you mean "port"?); valid keys
    /// here: host, port`.
    func unknownKeyError(_ key: String, at path: [PathComponent]) -> InputError {
        let field = PathComponent.render(path + [.key(key)])
        guard !known.isEmpty else { return InputError(path: field, message: "unknown key; this object takes no keys") }
        return InputError(
            path: field,
            message: "unknown key\(ClosestMatch.hint(key, among: known)); valid keys here: "
                + known.joined(separator: ", "))
    }
}

/// A required key absent from its object. Thrown inside `init(from:)` so that the range helpers
/// can word what they expected; becomes an `InputError` when it leaves the model.
struct MissingKeyError: Error {
    var path: String
    var expectation: String?

    var inputError: InputError {
        InputError(path: path, message: expectation.map { "missing; expected \($0)" } ?? "missing (required)")
    }
}

/// What one `StrictJSONDecoder.decode` call shares among its decoders.
final class DecodingState {
    let options: StrictJSONDecoder.Options
    let userInfo: [CodingUserInfoKey: any Sendable]
    /// The logs of the objects being decoded, by path.
    var logs: [[PathComponent]: KeyLog] = [:]

    init(options: StrictJSONDecoder.Options, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.options = options
        self.userInfo = userInfo
    }

    /// The log of the object at `path`, made on first use.
    func log(_ path: [PathComponent], members: [String: JSONNode]) -> KeyLog {
        if let log = logs[path] { return log }
        let log = KeyLog(members: members)
        logs[path] = log
        return log
    }

    /// Decodes `type` from `node`. When it is the first to decode the object at `path`, then
    /// once `init(from:)` returns, every key of that object (and of objects below it that were
    /// read through nested containers without their own `decode`) that the model did not read
    /// is refused.
    func decode<T: Decodable>(
        _ type: T.Type, from node: JSONNode, path: [PathComponent],
        codingPath: [any CodingKey]
    ) throws -> T {
        if T.self == RawNode.self {
            return RawNode(node: node, path: PathComponent.render(path)) as! T
        }
        // Any value, read whole: nothing inside it is an unknown key.
        if T.self == JSONNode.self { return node as! T }
        var owned = false
        if case .object(let members) = node, logs[path] == nil {
            logs[path] = KeyLog(members: members)
            owned = true
        }
        let value: T
        do {
            value = try T(from: NodeDecoder(node: node, path: path, codingPath: codingPath, state: self))
        } catch {
            if owned { dropLogs(under: path) }
            throw Self.inputError(error, decoding: T.self, node: node, path: path)
        }
        if owned { try checkLogs(under: path) }
        return value
    }

    /// The logs at and below `path`, removed.
    private func takeLogs(under path: [PathComponent]) -> [([PathComponent], KeyLog)] {
        let taken = logs.filter { $0.key.starts(with: path) }
        for key in taken.keys { logs[key] = nil }
        return taken.map { ($0.key, $0.value) }
    }

    private func dropLogs(under path: [PathComponent]) { _ = takeLogs(under: path) }

    private func checkLogs(under path: [PathComponent]) throws {
        let taken = takeLogs(under: path).sorted { PathComponent.render($0.0) < PathComponent.render($1.0) }
        guard options.unknownKeys == .refuse else { return }
        for (path, log) in taken {
            if let key = log.unread.first { throw log.unknownKeyError(key, at: path) }
        }
    }

    /// Any error out of `init(from:)` as an `InputError` at its path.
    static func inputError<T>(_ error: any Error, decoding type: T.Type, node: JSONNode, path: [PathComponent])
        -> InputError
    {
        switch error {
        case let error as any InputErrorConvertible:
            return error.inputError
        case let error as InputError:
            // An enumeration's raw value of the wrong kind (`3` for a string): its choices say more.
            if error.path == PathComponent.render(path),
                let choices = type as? any (CaseIterable & RawRepresentable).Type
            {
                return choiceError(choices, node: node, path: error.path)
            }
            return error
        case let error as MissingKeyError:
            return error.inputError
        case DecodingError.dataCorrupted(let context) where context.codingPath.count <= path.count:
            // A `RawRepresentable` enumeration refusing a raw value it has no case for.
            if let choices = type as? any (CaseIterable & RawRepresentable).Type {
                return choiceError(choices, node: node, path: PathComponent.render(path))
            }
            return InputError(at: context.codingPath, context.debugDescription)
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context), DecodingError.keyNotFound(_, let context):
            return InputError(at: context.codingPath, context.debugDescription)
        default:
            return InputError(path: PathComponent.render(path), message: String(describing: error))
        }
    }

    /// `expected one of "a", "b", got "c" (did you mean "b"?)`.
    private static func choiceError<C: CaseIterable & RawRepresentable>(_ type: C.Type, node: JSONNode, path: String)
        -> InputError
    {
        let raws = C.allCases.map { "\($0.rawValue)" }
        let quoted = C.RawValue.self == String.self
        let names = raws.map { quoted ? InputError.quoted($0) : $0 }
        var message = "expected one of \(names.joined(separator: ", ")), got \(node.rendered)"
        if quoted, case .string(let text) = node { message += ClosestMatch.hint(text, among: raws) }
        return InputError(path: path, message: message)
    }
}

/// A decoder over one node of the parsed document.
struct NodeDecoder: Decoder {
    let node: JSONNode
    let path: [PathComponent]
    let codingPath: [any CodingKey]
    let state: DecodingState

    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    var pathText: String { PathComponent.render(path) }

    func mismatch(_ expected: String) -> InputError {
        InputError(path: pathText, message: "expected \(expected), got \(node.rendered)")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw mismatch("an object") }
        let log = state.log(path, members: members)
        if let cases = Key.self as? any (CodingKey & CaseIterable).Type { log.know(Self.names(cases)) }
        return KeyedDecodingContainer(KeyedNodeContainer<Key>(decoder: self, members: members, log: log))
    }

    private static func names<K: CodingKey & CaseIterable>(_ type: K.Type) -> [String] {
        K.allCases.map(\.stringValue)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw mismatch("an array") }
        return UnkeyedNodeContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleNodeContainer(decoder: self)
    }

    func child(_ node: JSONNode, _ component: PathComponent, _ key: any CodingKey) -> NodeDecoder {
        NodeDecoder(node: node, path: path + [component], codingPath: codingPath + [key], state: state)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try state.decode(type, from: node, path: path, codingPath: codingPath)
    }

    // MARK: Scalars

    func decodeBool() throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch("true or false") }
        return value
    }

    func decodeString() throws -> String {
        guard case .string(let value) = node else { throw mismatch("a string") }
        return value
    }

    func decodeDouble() throws -> Double {
        switch node {
        case .int(let value): return Double(value)
        case .uint(let value): return Double(value)
        case .double(let value): return value
        default: throw mismatch("a number")
        }
    }

    func decodeFloat() throws -> Float {
        let value = try decodeDouble()
        guard Float(value).isFinite || !value.isFinite else {
            throw mismatch("a number from \(-Float.greatestFiniteMagnitude) to \(Float.greatestFiniteMagnitude)")
        }
        return Float(value)
    }

    /// A whole number that fits `T`; `2197.0` and `2.197e3` count as 2197, `1.5` does not.
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let value: T?
        switch node {
        case .int(let number): value = T(exactly: number)
        case .uint(let number): value = T(exactly: number)
        case .double(let number): value = number.isFinite ? T(exactly: number) : nil
        default: value = nil
        }
        guard let value else { throw mismatch(InputWording.integer(T.self)) }
        return value
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let members: [String: JSONNode]
    let log: KeyLog

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { members.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        log.know(key.stringValue)
        return members[key.stringValue] != nil
    }

    /// The node of `key`, consumed; a missing key is an error (with a "did you mean" when an
    /// unread key present is near it: `{"prot": 80}` is a typo of `port`, not a missing `port`).
    private func node(_ key: Key, expecting type: Any.Type) throws -> JSONNode {
        log.consume(key.stringValue)
        if let node = members[key.stringValue] { return node }
        if let near = ClosestMatch.find(key.stringValue, among: log.unread) {
            throw log.unknownKeyError(near, at: decoder.path)
        }
        throw MissingKeyError(
            path: PathComponent.render(decoder.path + [.key(key.stringValue)]),
            expectation: (type as? any InputDescribable.Type)?.inputExpectation)
    }

    private func child(_ key: Key, expecting type: Any.Type) throws -> NodeDecoder {
        decoder.child(try node(key, expecting: type), .key(key.stringValue), key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try node(key, expecting: Never.self) == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try child(key, expecting: type).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        log.consume(key.stringValue)
        guard let node = members[key.stringValue], node != .null else { return nil }
        return try decoder.child(node, .key(key.stringValue), key).decode(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key, expecting: type).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try child(key, expecting: type).decodeString()
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try child(key, expecting: type).decodeDouble()
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key, expecting: type).decodeFloat() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key, expecting: type).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try child(key, expecting: type).decodeInteger(type)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try child(key, expecting: type).decodeInteger(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key, expecting: Never.self).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key, expecting: Never.self).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try child(
            Key(stringValue: "super") ?? { fatalError("a coding key type without \"super\"") }(), expecting: Never.self)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key, expecting: Never.self) }
}

struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let elements: [JSONNode]
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, elements: [JSONNode]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> NodeDecoder {
        guard !isAtEnd else {
            throw InputError(path: decoder.pathText, message: "expected more than \(elements.count) elements")
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], .index(currentIndex), NodeKey(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decodeFloat() }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeInteger(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct SingleNodeContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.node == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat() }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
}
