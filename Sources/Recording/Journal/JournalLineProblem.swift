/// Why a journal line could not be read (`JournalLine.parse`).
package struct JournalLineProblem: Error, Sendable, Equatable {
    /// What is wrong.
    package var message: String
}
