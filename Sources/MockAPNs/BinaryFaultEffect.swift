import APNsCore
import Faults
import LegacyBinary

/// A fault rule's action in the legacy binary protocol's terms (docs/legacy-binary.md §8): an
/// error packet with a status (`respond`: the reason's status as the verdict's reasons map,
/// `Shutdown` 10 and `InternalServerError` 1 besides), a FIN with no packet (`close`), a TCP RST
/// (`reset`), each after a fixed `delay`. nil for an action with no binary meaning (a rule
/// matching `protocol: "binary"` cannot have one).
struct BinaryFaultEffect: Equatable {
    /// How the connection ends.
    enum End: Equatable {
        /// The error packet with this status (none for command 0: severed), then FIN.
        case status(BinaryStatus)
        /// FIN, no packet.
        case close
        /// TCP RST.
        case reset
    }

    /// Milliseconds before it is carried out (`delay`), 0 for at once.
    var delayMilliseconds: Int64
    var end: End
    /// The `respond` action's HTTP/2 answer, as the record shows it; nil for close and reset.
    var response: FaultResponse?

    /// The status of its error packet, if it writes one.
    var status: BinaryStatus? {
        if case .status(let status) = end { return status }
        return nil
    }

    init?(_ action: FaultAction) {
        switch action {
        case .respond(let response):
            self.init(delayMilliseconds: 0, end: .status(Self.status(for: response.reason)), response: response)
        case .close:
            self.init(delayMilliseconds: 0, end: .close, response: nil)
        case .reset:
            self.init(delayMilliseconds: 0, end: .reset, response: nil)
        case .delay(let milliseconds, let then?):
            guard let inner = BinaryFaultEffect(then) else { return nil }
            self.init(
                delayMilliseconds: milliseconds + inner.delayMilliseconds, end: inner.end, response: inner.response)
        default:
            return nil
        }
    }

    init(delayMilliseconds: Int64, end: End, response: FaultResponse?) {
        self.delayMilliseconds = delayMilliseconds
        self.end = end
        self.response = response
    }

    /// The status of a `respond` fault's reason: `Shutdown` 10, `InternalServerError` 1
    /// (processing error), else as a verdict's (`BinaryNotificationJudge.status(for:)`).
    static func status(for reason: Reason) -> BinaryStatus {
        switch reason {
        case .shutdown: .shutdown
        case .internalServerError: .processingError
        default: BinaryNotificationJudge.status(for: reason)
        }
    }
}
