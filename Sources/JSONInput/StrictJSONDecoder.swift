import Foundation

/// Decodes a `Decodable` model from JSON bytes, strictly, with every error an `InputError`
/// that names the field (`faults[2].action.type`) and, for syntax, the line and column.
///
/// Foundation parses (`JSONDecoder`); on top of it:
/// - **Unknown keys are refused** (`Options.unknownKeys`), with a "did you mean" and the valid
///   keys. No annotation is needed: the decoder records which keys each object's containers
///   were asked for, and once the model's `init(from:)` returns, a key present but not read
///   (decoded, `decodeIfPresent`'d, tested with `decodeNil` or opened as a nested container)
///   is refused. The keys a model asks for are its valid keys, so a type-discriminated object
///   (`{"type": "delay", "ms": 5}`) refuses the fields of other types by itself. When the
///   `CodingKeys` are `CaseIterable`, all their cases are listed as valid keys even when
///   `init(from:)` stopped before asking for them. A required key that is missing while an
///   unread key near it is present reports the latter as a typo (`prot: unknown key (did you
///   mean "port"?)`) rather than `port` as missing.
/// - **Strict syntax** (`.json`): a trailing comma, a comment or a key written twice in one
///   object is refused; syntax errors carry `line` and `column` (1-based; columns in Unicode
///   scalars), found by `JSONSyntaxCheck`, which runs before Foundation. In `.json5` a
///   repeated key is refused too, and syntax errors are located the same way.
/// - **Messages** say what was expected and what came: `expected a string, got 42`,
///   `expected one of "sandbox", "production", got "prod"`, `missing; expected an integer`.
///   Ranges: `KeyedDecodingContainer.decode(_:forKey:in:)`.
///
/// Meant for configuration files and control-API bodies (a tree is built, then walked), not
/// for the push path. A model's own `throw InputError(at: decoder.codingPath, "...")` passes
/// through unchanged; any other error thrown by a model becomes an `InputError` at the path
/// of the value being decoded, its description as the message.
public struct StrictJSONDecoder: Sendable {
    /// Which JSON the decoder reads.
    public enum Syntax: Sendable, Equatable {
        /// RFC 8259 JSON, checked strictly (see the type's comment): control-API bodies.
        case json
        /// JSON5 as Foundation reads it (comments, trailing commas, identifier keys,
        /// single-quoted strings, `+`, hexadecimal, `Infinity` and `NaN` numbers): hand-written
        /// configuration files. Foundation decides what is valid; `JSONSyntaxCheck` then locates
        /// its refusals (line and column) and refuses repeated keys. Should the check not find
        /// Foundation's error, the error has Foundation's words and no position.
        case json5
    }

    /// What happens to a key the model did not read.
    public enum UnknownKeyPolicy: Sendable, Equatable {
        /// An `InputError` at the key's path: `unknown key (did you mean "port"?); valid keys here: host, port`.
        case refuse
        /// Skipped, for the rare body that must accept keys of later versions.
        case ignore
    }

    /// The decoder's settings.
    public struct Options: Sendable, Equatable {
        public var syntax: Syntax
        public var unknownKeys: UnknownKeyPolicy

        public init(syntax: Syntax = .json, unknownKeys: UnknownKeyPolicy = .refuse) {
            self.syntax = syntax
            self.unknownKeys = unknownKeys
        }
    }

    public var options: Options
    /// Handed to models as `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(options: Options = Options(), userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.options = options
        self.userInfo = userInfo
    }

    /// Decodes `type` from `bytes`: one JSON value in UTF-8 (a leading byte order mark is
    /// skipped), of any kind the model takes (an object, an array or a scalar).
    /// - Throws: `InputError` for invalid UTF-8, empty input, syntax (with `line`/`column` in
    ///   `.json`), and any key or value the model refuses (with `path`).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(InputError) -> T {
        var bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if let offset = TextPosition.firstInvalidUTF8(in: bytes) {
            throw Self.syntaxError(
                "not valid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true)))",
                at: offset, in: bytes)
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw InputError(path: "", message: "the document is empty; expected a JSON value")
        }
        if options.syntax == .json, let problem = JSONSyntaxCheck.firstProblem(in: bytes) {
            throw Self.syntaxError(
                problem.message, at: problem.offset, in: bytes, path: PathComponent.render(problem.path))
        }
        // Foundation's JSON5 scanner traps on malformed numbers (`2e-`, `0x0xAA`; found by
        // ConfigurationFuzz, docs/fuzzing.md): a document whose first problem is in a number,
        // which Foundation would refuse anyway, is refused before it gets there.
        if options.syntax == .json5, let problem = JSONSyntaxCheck.firstProblem(in: bytes, json5: true),
            problem.inNumber
        {
            throw Self.syntaxError(
                problem.message, at: problem.offset, in: bytes, path: PathComponent.render(problem.path))
        }
        let node: JSONNode
        do {
            node = try JSONNode.parse(bytes, json5: options.syntax == .json5)
        } catch {
            // JSON5: Foundation decides, then the check says where (Foundation does not).
            if options.syntax == .json5, let problem = JSONSyntaxCheck.firstProblem(in: bytes, json5: true) {
                throw Self.syntaxError(
                    problem.message, at: problem.offset, in: bytes, path: PathComponent.render(problem.path))
            }
            throw Self.foundationSyntaxError(error)
        }
        // JSON5 that Foundation accepted: only a repeated key is refused, so that the check
        // can never refuse a document Foundation reads.
        if options.syntax == .json5, let problem = JSONSyntaxCheck.firstProblem(in: bytes, json5: true),
            problem.message.hasPrefix(JSONSyntaxCheck.duplicateKeyPrefix)
        {
            throw Self.syntaxError(
                problem.message, at: problem.offset, in: bytes, path: PathComponent.render(problem.path))
        }
        let state = DecodingState(options: options, userInfo: userInfo)
        do {
            return try state.decode(type, from: node, path: [], codingPath: [])
        } catch {
            throw DecodingState.inputError(error, decoding: type, node: node, path: [])
        }
    }

    /// Decodes `type` from a value already parsed, e.g. one entry of a document read before;
    /// field paths in errors are relative to `node` (`InputError.prefixed(_:)` puts the entry's
    /// own path before them). Unknown keys are handled as by `decode(_:from:)`.
    /// - Throws: `InputError` for any key or value the model refuses.
    public func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) throws(InputError) -> T {
        let state = DecodingState(options: options, userInfo: userInfo)
        do {
            return try state.decode(type, from: node, path: [], codingPath: [])
        } catch {
            throw DecodingState.inputError(error, decoding: type, node: node, path: [])
        }
    }

    /// `decode(_:from:)` for `Data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(InputError) -> T {
        try decode(type, from: [UInt8](data))
    }

    private static func syntaxError(_ message: String, at offset: Int, in bytes: [UInt8], path: String = "")
        -> InputError
    {
        let position = TextPosition.lineAndColumn(of: offset, in: bytes)
        return InputError(path: path, message: message, line: position.line, column: position.column)
    }

    /// Foundation's refusal (JSON5, or strict JSON it refuses after `JSONSyntaxCheck` passed
    /// it), with its own words and, when they name one, its line and column.
    private static func foundationSyntaxError(_ error: any Error) -> InputError {
        var path = "", detail = String(describing: error)
        if case DecodingError.dataCorrupted(let context) = error {
            path = InputError.path(context.codingPath)
            detail =
                context.underlyingError.map {
                    ($0 as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\($0)"
                }
                ?? context.debugDescription
        }
        let text = FoundationJSONErrorText.words(for: detail)
        var result = InputError(path: path, message: "not valid JSON: \(text.message)")
        if let line = text.line, let column = text.column {
            (result.line, result.column) = (line, column)
        } else if let position = lineAndColumn(in: detail) {
            (result.line, result.column) = position
        }
        return result
    }

    /// `(N, M)` from a message containing `line N, column M`.
    static func lineAndColumn(in text: String) -> (Int, Int)? {
        guard let lineRange = text.range(of: "line ") else { return nil }
        let afterLine = text[lineRange.upperBound...]
        let lineDigits = afterLine.prefix(while: \.isNumber)
        guard let line = Int(lineDigits) else { return nil }
        let rest = afterLine.dropFirst(lineDigits.count)
        guard rest.hasPrefix(", column ") else { return nil }
        let columnDigits = rest.dropFirst(", column ".count).prefix(while: \.isNumber)
        guard let column = Int(columnDigits) else { return nil }
        return (line, column)
    }
}

extension StrictJSONDecoder {
    /// Where the value at `path` (a field path as `InputError.path` spells it, e.g.
    /// `listeners[0].port`) starts in `bytes`, as a 1-based line and column; for a path the
    /// document does not hold (a missing key), where its nearest enclosing value starts. Nil when
    /// not even the document's value can be found. For errors found after decoding (a type or a
    /// range), which the decoder reports by path only.
    public static func position(of path: String, in bytes: [UInt8], json5: Bool = false) -> (line: Int, column: Int)? {
        let offsets = JSONSyntaxCheck.valueOffsets(in: bytes, json5: json5)
        var candidate = path
        while true {
            if let offset = offsets[candidate] { return TextPosition.lineAndColumn(of: offset, in: bytes) }
            guard !candidate.isEmpty else { return nil }
            // Drop the last step: `a.b[2]` -> `a.b` -> `a` -> "".
            if candidate.hasSuffix("]"), let open = candidate.lastIndex(of: "[") {
                candidate = String(candidate[..<open])
            } else if let dot = candidate.lastIndex(of: ".") {
                candidate = String(candidate[..<dot])
            } else {
                candidate = ""
            }
        }
    }
}
