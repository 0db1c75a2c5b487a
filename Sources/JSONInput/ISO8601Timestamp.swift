/// A moment as milliseconds since the Unix epoch, read from and written as ISO 8601 UTC
/// (`2026-11-30T08:49:03.123Z`): the project's one date parser and formatter (inputs, fault windows, records, events, the clock). By hand,
/// exact to the millisecond, no formatter objects (not `Sendable`, slow to create).
///
/// One rule for every value: a timestamp lies in `ISO8601Timestamp.range`, from the epoch
/// (`1970-01-01T00:00:00.000Z`, 0) to `9999-12-31T23:59:59.999Z` (253402300799999), the
/// moments four-digit years can write at or after the epoch. `parse` and decoding refuse
/// anything outside (an earlier date, a negative or larger integer); `format` clamps into it, so
/// what it writes always parses back.
///
/// JSON (`Decodable`): an ISO 8601 string or an integer of milliseconds, both in `range`.
/// Encoded as the string.
public struct ISO8601Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, InputDescribable {
    /// Milliseconds since the Unix epoch, in `range`.
    public var epochMilliseconds: Int64

    /// The accepted milliseconds since the epoch: `1970-01-01T00:00:00.000Z` to `9999-12-31T23:59:59.999Z`.
    public static let range: ClosedRange<Int64> = 0...253_402_300_799_999

    /// A timestamp of `epochMilliseconds`, nil outside `range`.
    public init?(epochMilliseconds: Int64) {
        guard Self.range.contains(epochMilliseconds) else { return nil }
        self.epochMilliseconds = epochMilliseconds
    }

    /// A timestamp of `epochMilliseconds` clamped into `range` (below it: the epoch; above it:
    /// the last millisecond of 9999), for moments computed from a clock plus a duration.
    public init(clamping epochMilliseconds: Int64) {
        self.epochMilliseconds = min(max(epochMilliseconds, Self.range.lowerBound), Self.range.upperBound)
    }

    /// A timestamp parsed from `text` (see `parse(_:)`), nil when malformed or outside `range`.
    public init?(_ text: String) {
        guard let milliseconds = Self.parse(text) else { return nil }
        epochMilliseconds = milliseconds
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.epochMilliseconds < rhs.epochMilliseconds }

    /// The ISO 8601 form, e.g. `2026-11-30T08:49:03.123Z`.
    public var description: String { Self.format(epochMilliseconds: epochMilliseconds) }

    public static var inputExpectation: String {
        "an ISO 8601 time such as \"2026-11-30T08:49:03.123Z\" or an integer of milliseconds since the epoch"
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(RawNode.self)
        let milliseconds: Int64? =
            switch raw.node {
            case .string(let text): Self.parse(text)
            case .int(let number): Self.range.contains(number) ? number : nil
            case .double(let number): Int64(exactly: number).flatMap { Self.range.contains($0) ? $0 : nil }
            default: nil
            }
        guard let milliseconds else {
            throw InputError(path: raw.path, message: "expected \(Self.inputExpectation), got \(raw.node.rendered)")
        }
        epochMilliseconds = milliseconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (a space may replace `T`; `t`
    /// and `z` may be lowercase; the fraction may be absent or of any length, digits beyond
    /// milliseconds truncated) into milliseconds since the epoch. Nil when malformed, when a
    /// field is out of range (month 13, February 30, hour 24, second 61), or when the moment is
    /// outside `range`. A leap second (`:60`) reads as the next second's start.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= b.count else { return nil }
            var n: Int64 = 0
            for k in i..<(i + width) {
                guard b[k] >= 0x30 && b[k] <= 0x39 else { return nil }
                n = n * 10 + Int64(b[k] - 0x30)
            }
            i += width
            return n
        }
        func expect(_ chars: String) -> Bool {
            guard i < b.count, chars.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let y = number(4), expect("-"), let mo = number(2), expect("-"), let d = number(2),
            expect("Tt "), let h = number(2), expect(":"), let mi = number(2), expect(":"),
            let s = number(2)
        else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h <= 23, mi <= 59, s <= 60 else {
            return nil
        }
        var ms: Int64 = 0
        if i < b.count, b[i] == 0x2E {  // "."
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                if digits < 3 { ms = ms * 10 + Int64(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { ms *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if expect("Zz") {
        } else if i < b.count, b[i] == 0x2B || b[i] == 0x2D {  // "+" or "-"
            let sign: Int64 = b[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = number(2), oh <= 23 else { return nil }
            _ = expect(":")
            guard let om = number(2), om <= 59 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(y, mo, d)
        let result = ((days * 86_400 + h * 3600 + mi * 60 + s) - offsetMinutes * 60) * 1000 + ms
        return range.contains(result) ? result : nil
    }

    /// `2026-11-30T08:49:03.123Z` for `ms` milliseconds since the epoch, always with three
    /// fraction digits and `Z`; `ms` outside `range` is clamped to its nearest end.
    public static func format(epochMilliseconds ms: Int64) -> String {
        let ms = min(max(ms, range.lowerBound), range.upperBound)
        let days = ms / 86_400_000, msOfDay = ms % 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let seconds = msOfDay / 1000
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { out in
            var i = 0
            func put(_ n: Int64, _ width: Int) {
                var n = n
                for k in stride(from: width - 1, through: 0, by: -1) {
                    out[i + k] = UInt8(0x30 + n % 10)
                    n /= 10
                }
                i += width
            }
            func put(_ c: UInt8) {
                out[i] = c
                i += 1
            }
            put(y, 4)
            put(0x2D)
            put(m, 2)
            put(0x2D)
            put(d, 2)
            put(0x54)
            put(seconds / 3600, 2)
            put(0x3A)
            put(seconds / 60 % 60, 2)
            put(0x3A)
            put(seconds % 60, 2)
            put(0x2E)
            put(msOfDay % 1000, 3)
            put(0x5A)
            return String(decoding: UnsafeBufferPointer(rebasing: out[0..<i]), as: UTF8.self)
        }
    }

    /// `format(epochMilliseconds:)` of `seconds` since the epoch, truncated to the millisecond
    /// (rounded down); NaN formats as the epoch, other values outside `range` clamp.
    public static func format(epochSeconds seconds: Double) -> String {
        let ms = (seconds * 1000).rounded(.down)
        if ms.isNaN { return format(epochMilliseconds: 0) }
        return format(epochMilliseconds: ms >= Double(range.upperBound) ? range.upperBound : ms <= 0 ? 0 : Int64(ms))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` (at least 0) after 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
