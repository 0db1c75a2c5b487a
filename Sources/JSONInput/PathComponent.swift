/// One step of a field path.
enum PathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)

    /// `listeners[0].port`.
    static func render(_ path: [PathComponent]) -> String {
        var out = ""
        for component in path {
            switch component {
            case .key(let key): out = InputError.join(out, key)
            case .index(let index): out += "[\(index)]"
            }
        }
        return out
    }
}
