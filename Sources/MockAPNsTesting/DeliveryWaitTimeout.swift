/// `MockAPNsServer.waitForDeliveries` ran out of time with too few matching records; the
/// description is the verification's message (what was expected, what matched, the closest).
public struct DeliveryWaitTimeout: Error, Sendable, CustomStringConvertible {
    /// The last look at the store.
    public var outcome: VerificationOutcome

    /// The message of `outcome`.
    public var description: String { outcome.description }
}
