/// The incremental reader of a binary-gateway connection's byte stream: commands 0, 1 and 2
/// (items 1-5), big-endian, split anywhere by the network (docs/legacy-binary.md §2, §3, §5).
///
/// A state machine in two states. *Serving*: each whole, well-formed notification is handed out
/// to be judged (`BinaryFeedResult.notifications`); the first bad one ends serving with a
/// `BinaryRejection` (an error packet then close, or, for command 0, a close with none).
/// *Discarding* (after a rejection or `stop()`): whole notifications that still arrive are handed
/// out as `discarded`, and once the framing is lost (a command byte that is none of Apple's, a
/// frame length over the limit) the rest is counted and dropped.
///
/// A notification is judged once all of it has arrived (its lengths are u16, or, for command 2,
/// a frame length no larger than `BinaryLimits.frameLengthLimit`), so what the decoder holds is
/// bounded by the limits, whatever the length fields claim.
public struct BinaryFrameDecoder: Sendable {
    /// The limits notifications are held to.
    public let limits: BinaryLimits
    /// False once a rejection was found or `stop()` was called: the connection is to be closed.
    public private(set) var isServing = true
    /// Bytes dropped unread once the framing was lost, from the header that lost it on.
    public private(set) var unparsedByteCount = 0
    private var buffer: [UInt8] = []
    private var start = 0
    private var framingLost = false

    /// Creates a decoder holding notifications to `limits`.
    public init(limits: BinaryLimits = BinaryLimits()) {
        self.limits = limits
    }

    /// Bytes received that form no whole notification yet.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Ends serving: what arrives later is discarded (the server refused a notification itself,
    /// or it is shutting down).
    public mutating func stop() {
        isServing = false
    }

    /// Takes the next `bytes` of the stream and returns what they completed, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> BinaryFeedResult {
        var result = BinaryFeedResult()
        if framingLost {
            unparsedByteCount += bytes.count
            return result
        }
        buffer.append(contentsOf: bytes)
        while true {
            let step = Self.parse(buffer, from: start, limits: limits)
            switch step {
            case .needMore:
                compact()
                return result
            case .notification(let notification):
                start += notification.byteCount
                if isServing {
                    result.notifications.append(notification)
                } else {
                    result.discarded.append(notification)
                }
            case .rejection(let rejection, let length):
                if isServing {
                    result.rejection = rejection
                    isServing = false
                } else if let notification = rejection.notification {
                    result.discarded.append(notification)
                }
                guard let length else {
                    framingLost = true
                    unparsedByteCount += buffer.count - start
                    buffer = []
                    start = 0
                    return result
                }
                start += length
            }
        }
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4096)
            start = 0
        } else if start > 4096 && start > buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// One step of the reader: not enough bytes yet, a good notification, or a bad one with the
    /// length it took (`nil` when its framing cannot be known).
    enum Step {
        case needMore
        case notification(BinaryNotification)
        case rejection(BinaryRejection, length: Int?)
    }

    /// Reads the notification at `offset` of `bytes`.
    static func parse(_ bytes: [UInt8], from offset: Int, limits: BinaryLimits) -> Step {
        let available = bytes.count - offset
        guard available >= 1 else { return .needMore }
        let commandByte = bytes[offset]
        guard let command = BinaryCommand(rawValue: commandByte) else {
            let rejection = BinaryRejection(
                commandByte: commandByte, status: .protocolError, identifier: 0, notification: nil)
            return .rejection(rejection, length: nil)
        }
        switch command {
        case .simple, .enhanced:
            return parseFixed(command, bytes, from: offset, limits: limits)
        case .framed:
            return parseFramed(bytes, from: offset, limits: limits)
        }
    }

    /// Commands 0 and 1: `[identifier u32, expiry u32,] tokenLen u16, token, payloadLen u16,
    /// payload`.
    private static func parseFixed(
        _ command: BinaryCommand, _ bytes: [UInt8], from offset: Int, limits: BinaryLimits
    ) -> Step {
        let available = bytes.count - offset
        let headerLength = command == .enhanced ? 9 : 1
        guard available >= headerLength + 2 else { return .needMore }
        let tokenLength = Int(BigEndian.uint16(bytes, at: offset + headerLength))
        let payloadLengthAt = headerLength + 2 + tokenLength
        guard available >= payloadLengthAt + 2 else { return .needMore }
        let payloadLength = Int(BigEndian.uint16(bytes, at: offset + payloadLengthAt))
        let total = payloadLengthAt + 2 + payloadLength
        guard available >= total else { return .needMore }
        let tokenStart = offset + headerLength + 2
        let payloadStart = offset + payloadLengthAt + 2
        var notification = BinaryNotification(
            command: command, token: Array(bytes[tokenStart..<tokenStart + tokenLength]),
            payload: Array(bytes[payloadStart..<payloadStart + payloadLength]), byteCount: total)
        if command == .enhanced {
            notification.identifier = BigEndian.uint32(bytes, at: offset + 1)
            notification.expiry = BigEndian.uint32(bytes, at: offset + 5)
        }
        if let status = sizeProblem(notification, limits: limits) {
            return .rejection(BinaryRejection(notification, status: status), length: total)
        }
        return .notification(notification)
    }

    /// Command 2: `frameLen u32`, then items `itemId u8, itemLen u16, data`.
    private static func parseFramed(_ bytes: [UInt8], from offset: Int, limits: BinaryLimits) -> Step {
        let available = bytes.count - offset
        guard available >= 5 else { return .needMore }
        let frameLength = BigEndian.uint32(bytes, at: offset + 1)
        guard frameLength <= UInt32(limits.frameLengthLimit) else {
            let rejection = BinaryRejection(
                commandByte: BinaryCommand.framed.rawValue, status: .protocolError, identifier: 0, notification: nil)
            return .rejection(rejection, length: nil)
        }
        let total = 5 + Int(frameLength)
        guard available >= total else { return .needMore }
        let end = offset + total
        var items = FramedItems()
        var cursor = offset + 5
        while cursor < end {
            guard end - cursor >= 3 else {
                items.malformed = true
                break
            }
            let itemID = bytes[cursor]
            let itemLength = Int(BigEndian.uint16(bytes, at: cursor + 1))
            let dataStart = cursor + 3
            guard end - dataStart >= itemLength else {
                items.malformed = true
                break
            }
            items.take(itemID, Array(bytes[dataStart..<dataStart + itemLength]))
            cursor = dataStart + itemLength
        }
        let notification = BinaryNotification(
            command: .framed, identifier: items.identifier, expiry: items.expiry, priority: items.priority,
            token: items.token ?? [], payload: items.payload ?? [], byteCount: total)
        // A missing item reads as an empty one: status 2 or 4.
        let status = items.malformed ? .protocolError : sizeProblem(notification, limits: limits)
        if let status {
            return .rejection(BinaryRejection(notification, status: status), length: total)
        }
        return .notification(notification)
    }

    /// Statuses 2, 5, 4 and 7, in Apple's order of the table: a missing (empty) token, a token of
    /// the wrong length, a missing (empty) payload, a payload over the command's limit.
    private static func sizeProblem(_ notification: BinaryNotification, limits: BinaryLimits) -> BinaryStatus? {
        if notification.token.isEmpty { return .missingDeviceToken }
        if notification.token.count != limits.tokenLength { return .invalidTokenSize }
        if notification.payload.isEmpty { return .missingPayload }
        if notification.payload.count > limits.payloadLimit(for: notification.command) { return .invalidPayloadSize }
        return nil
    }
}

/// The items of one command-2 frame as read; `malformed` when an item is unknown, repeated, of
/// the wrong length or value, or runs past the frame (status 128).
private struct FramedItems {
    var token: [UInt8]?
    var payload: [UInt8]?
    var identifier: UInt32?
    var expiry: UInt32?
    var priority: UInt8?
    var malformed = false
    private var seen: UInt8 = 0

    mutating func take(_ itemID: UInt8, _ data: [UInt8]) {
        guard (1...5).contains(itemID) else {
            malformed = true
            return
        }
        let bit = UInt8(1) << itemID
        if seen & bit != 0 {
            malformed = true
            return
        }
        seen |= bit
        switch itemID {
        case 1: token = data
        case 2: payload = data
        case 3:
            if data.count == 4 { identifier = BigEndian.uint32(data, at: 0) } else { malformed = true }
        case 4:
            if data.count == 4 { expiry = BigEndian.uint32(data, at: 0) } else { malformed = true }
        default:
            if data.count == 1 && (data[0] == 5 || data[0] == 10) { priority = data[0] } else { malformed = true }
        }
    }
}
