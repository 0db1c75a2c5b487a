import JSONInput

/// The body of `PUT /v1/clock`: `{"offsetSeconds": N}`, seconds added to the clock of
/// provider-token checks, finite, within ±1e10 (negative moves the clock back). Other keys are
/// refused like in every other body.
struct ClockBody: Decodable, Equatable {
    /// The new offset, seconds.
    var offsetSeconds: Double

    /// The accepted offsets, seconds.
    static let offsetRange: ClosedRange<Double> = -1e10...1e10

    /// The body's shape, for messages.
    static let form =
        #"a JSON object like {"offsetSeconds": 4000}, a finite number of seconds (negative moves the clock back)"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case offsetSeconds
    }

    init(offsetSeconds: Double) { self.offsetSeconds = offsetSeconds }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offsetSeconds = try container.decode(Double.self, forKey: .offsetSeconds, in: Self.offsetRange)
    }
}
