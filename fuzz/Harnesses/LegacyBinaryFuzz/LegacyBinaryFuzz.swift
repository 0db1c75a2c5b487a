import FuzzSupport
import LegacyBinary

/// The binary gateway's byte stream through `BinaryFrameDecoder`, whole and split into pieces of
/// the size the input's first byte chooses. Both reads must hand out the same notifications,
/// rejection and discards (the network may split a stream anywhere), and every good
/// notification must encode back to the bytes it was read from.
@_cdecl("LLVMFuzzerTestOneInput")
public func legacyBinaryFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzDriver.bytes(data, size)
    guard let first = input.first else { return 0 }
    let step = Int(first) + 1
    let stream = Array(input.dropFirst())

    var whole = BinaryFrameDecoder()
    let all = whole.feed(stream)

    var pieces = BinaryFrameDecoder()
    var split = BinaryFeedResult()
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + step)
        let part = pieces.feed(stream[offset..<end])
        split.notifications += part.notifications
        split.discarded += part.discarded
        if let rejection = part.rejection {
            precondition(split.rejection == nil, "a second rejection on one stream")
            split.rejection = rejection
        }
        offset = end
    }
    precondition(all == split, "the stream read whole and in pieces of \(step) differ")
    precondition(whole.unparsedByteCount == pieces.unparsedByteCount, "unparsed byte counts differ")
    precondition(whole.isServing == pieces.isServing, "serving states differ")
    for notification in all.notifications {
        var again = BinaryFrameDecoder()
        let read = again.feed(BinaryFrameEncoder.encode(notification))
        precondition(
            read.notifications.count == 1 && read.rejection == nil, "an accepted notification, encoded, is refused")
        var back = read.notifications[0]
        back.byteCount = notification.byteCount
        precondition(back == notification, "an accepted notification does not read back as itself")
    }
    return 0
}

@_cdecl("LegacyBinaryFuzz_main")
public func legacyBinaryFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, legacyBinaryFuzz)
}
