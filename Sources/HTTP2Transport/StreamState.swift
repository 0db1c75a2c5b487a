/// One open request stream: what has arrived so far, and the response body being sent.
final class StreamState {
    var method = ""
    var path = ""
    var authority: String?
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var responseBody: [UInt8] = []
    var responseOffset = 0
    var dispatched = false

    init() { headers.reserveCapacity(8) }
}
