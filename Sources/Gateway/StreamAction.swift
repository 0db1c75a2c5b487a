import Faults
import HTTPFields

/// What happens to the stream that carried a push.
public enum StreamAction: Sendable, Hashable {
    /// Answered with the decision's response.
    case answer
    /// Left open and unanswered: no HEADERS are sent (a `noResponse` fault; a GOAWAY, close or
    /// reset before the response; a rejected certificate's GOAWAY). The stream ends when the
    /// client resets it or the connection goes.
    case leaveOpen
    /// RST_STREAM with this HTTP/2 error code, no answer (docs/field-cases.md C5, C6).
    case reset(HTTP2ErrorCode)
}
