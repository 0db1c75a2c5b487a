import JSONInput

/// Typed reads of configuration values, with errors naming the field and what was expected.
extension JSONNode {
    /// A whole number in `range`. `2197.0` and `2.197e3` are accepted as 2197; `1.5` is not.
    /// `expected` replaces the range's wording in the error message.
    func integer(at field: String, in range: ClosedRange<Int>, expected: String? = nil) throws(ConfigurationError)
        -> Int
    {
        let expected = expected ?? ConfigurationLimits.expectation(range)
        guard let value = wholeNumber, range.contains(value) else {
            throw ConfigurationError(field: field, message: "expected \(expected), got \(rendered)")
        }
        return value
    }

    /// The integer the value is, nil for anything else (a fraction, a number beyond `Int`).
    var wholeNumber: Int? {
        switch self {
        case .int(let number): return Int(exactly: number)
        case .uint(let number): return Int(exactly: number)
        default: return nil
        }
    }

    /// The number the value is, nil for anything else.
    var number: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .uint(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    func boolean(at field: String) throws(ConfigurationError) -> Bool {
        guard case .bool(let value) = self else {
            throw ConfigurationError(field: field, message: "expected true or false, got \(rendered)")
        }
        return value
    }

    func text(at field: String, expected: String = "a non-empty string") throws(ConfigurationError) -> String {
        guard case .string(let value) = self, !value.isEmpty else {
            throw ConfigurationError(field: field, message: "expected \(expected), got \(rendered)")
        }
        return value
    }

    /// One of an enumeration's raw values, with a suggestion for a near miss.
    func choice<Choice>(at field: String, _ type: Choice.Type) throws(ConfigurationError) -> Choice
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue)
        if case .string(let value) = self, let choice = Choice(rawValue: value) { return choice }
        var message = "expected one of \(names.map(InputError.quoted).joined(separator: ", ")), got \(rendered)"
        if case .string(let value) = self, let near = ClosestMatch.find(value, among: names) {
            message += " (did you mean \(InputError.quoted(near))?)"
        }
        throw ConfigurationError(field: field, message: message)
    }

    /// An address written `"HOST:PORT"`.
    func address(at field: String) throws(ConfigurationError) -> HostPort {
        guard case .string(let value) = self else {
            throw ConfigurationError(field: field, message: "expected \"\(HostPort.syntax)\", got \(rendered)")
        }
        do {
            return try HostPort.parse(value)
        } catch {
            throw ConfigurationError(
                field: field, message: "expected \"\(HostPort.syntax)\", got \(rendered): \(error.hint)")
        }
    }
}
