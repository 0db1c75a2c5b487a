import JSONInput

/// The device model's own refusals as `InputError`s at a field path, so that a control-API body
/// or a configuration entry gets a 4xx-ready message naming the field (docs/device-model.md §1).
enum InputErrorAt {
    /// An error at `key` of the object being decoded.
    static func key(_ key: any CodingKey, in decoder: any Decoder, _ message: String) -> InputError {
        InputError(at: decoder.codingPath + [key], message)
    }

    /// An error at `relative` (e.g. `categories[2].identifier`) below the value at `codingPath`.
    static func path(_ codingPath: [any CodingKey], _ relative: String, _ message: String) -> InputError {
        InputError(path: InputError.join(InputError.path(codingPath), relative), message: message)
    }

    /// The first value of `values` that repeats an earlier one: its position, the earlier
    /// position and the value; nil when all differ.
    static func firstRepeat(_ values: [String]) -> (index: Int, first: Int, value: String)? {
        var seen: [String: Int] = [:]
        for (index, value) in values.enumerated() {
            if let first = seen[value] { return (index, first, value) }
            seen[value] = index
        }
        return nil
    }
}
