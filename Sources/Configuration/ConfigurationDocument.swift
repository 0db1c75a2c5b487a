import Foundation
import JSONInput

/// A configuration file as `StrictJSONDecoder` decodes it: the `Configuration` it describes,
/// not yet validated (`ConfigurationFile.parse(_:)` reads the sections, see there).
struct ConfigurationDocument: Decodable {
    /// The `userInfo` key of the moment scenario windows start, milliseconds since the epoch
    /// (`Int64`); now when absent.
    static let nowKey = CodingUserInfoKey(rawValue: "nowMilliseconds")!

    let configuration: Configuration

    init(from decoder: any Decoder) throws {
        let now =
            decoder.userInfo[Self.nowKey] as? Int64 ?? Int64(Date().timeIntervalSince1970 * 1000)
        configuration = try ConfigurationFile.read(decoder, nowMilliseconds: now)
    }
}
