/// A journal that cannot be used (`--journal FILE`): unreadable, unwritable, or with a bad line
/// that is not the last one. The server refuses to start (README "Journal").
public struct JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The journal file.
    public var path: String
    /// The 1-based line that is bad, or nil when the file as a whole is the problem.
    public var line: Int?
    /// What is wrong, e.g. `not valid JSON`, `seq 12 follows 10`.
    public var message: String

    /// Memberwise initializer.
    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `journal FILE, line N: message`.
    public var description: String {
        "journal \(path)\(line.map { ", line \($0)" } ?? ""): \(message)"
    }
}
