import HTTPFields

/// What `RequestValidator` reuses from the connection's previous request: the checked,
/// lowercased form of a repeated device token, the checks of repeated header fields and the
/// outcome of a repeated body. Its one
/// conformance is `PreviousRequest` (target Gateway), which also keeps the previous push's record
/// and so needs the record store: this protocol lets validation stay in APNsCore, below
/// Recording. Each use is one call through the witness table on the validating path only (a
/// push repeating the previous one as a whole skips validation).
package protocol ValidationMemo: AnyObject {
    /// `DeviceTokenRule.normalized(utf8: text, options:)` for the token text's UTF-8 bytes (read
    /// in the request's `:path`), reused when `text` and the options repeat.
    func normalizedToken(_ text: UnsafeBufferPointer<UInt8>, options: ValidationOptions) -> String?
    /// `HeaderChecks(fields, defaultTopic:)`, reused when the fields and default topic repeat those
    /// of the last checks (`HeaderChecks.sameInput`).
    func headerChecks(of fields: [HeaderField], defaultTopic: String?) -> HeaderChecks
    /// A verdict the memo no longer needs, moved out (nil when it has none): its text box is
    /// reused for the next verdict (`ValidationResult.init(reusing:...)`).
    func takeSpareVerdict() -> ValidationResult?
    /// The outcome of `body`: the remembered one when `body` has the same bytes as the last
    /// body seen, else `inspect(body, scratch)` with the memo's own `PayloadScratch` (kept for the
    /// connection: a parse then allocates nothing), which is remembered.
    func outcome(
        of body: [UInt8], inspect: ([UInt8], PayloadScratch) -> PayloadInspector.Outcome
    ) -> PayloadInspector.Outcome
    /// The verdict being made holds only before `milliseconds` since the epoch (a device's
    /// `unregisteredAt` still to come): a repeat of the push at or after that moment is validated
    /// again. Called during `RequestValidator.validate`, before the verdict is remembered.
    func verdictHolds(until milliseconds: Int64)
}
