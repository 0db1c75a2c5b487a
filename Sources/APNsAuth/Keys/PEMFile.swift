import Foundation

/// Reads key and certificate files as text.
enum PEMFile {
    /// The contents of `path` as UTF-8 text.
    static func read(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthMaterialError("\(path): cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
