/// An ID the gateway answers with (`apns-id`, `apns-unique-id`): text, when echoed from the
/// request or made by an injected generator; or the bits of a UUID the gateway generated, spelled
/// only where text is needed. A repeated push's response and record take the bits as they are
/// (`UUIDHeaderField`, `CompactRecordTemplate`): no `String` per ID on that path.
package enum ResponseID {
    case text(String)
    case uuid(UUIDGenerator.Bits)

    /// The ID as text.
    package var text: String {
        switch self {
        case .text(let text): return text
        case .uuid(let bits): return bits.text
        }
    }
}
