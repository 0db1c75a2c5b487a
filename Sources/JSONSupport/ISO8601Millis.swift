/// ISO 8601 UTC timestamps with milliseconds (`2026-11-30T08:49:03.123Z`), written and read
/// by hand: exact to the millisecond, no formatter objects (not Sendable, slow to create).
package enum ISO8601Millis {
    /// Formats `seconds` since the Unix epoch, truncated to the millisecond. Non-finite or
    /// out-of-range values format as the epoch.
    package static func format(epochSeconds seconds: Double) -> String {
        let ms = (seconds * 1000).rounded(.down)
        guard ms.isFinite, abs(ms) < 1e17 else { return format(epochMilliseconds: 0) }
        return format(epochMilliseconds: Int64(ms))
    }

    /// Formats `ms` milliseconds since the Unix epoch.
    package static func format(epochMilliseconds ms: Int64) -> String {
        let (days, msOfDay) = ms.floorDivided(by: 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        let seconds = msOfDay / 1000
        if (0...9999).contains(y) {
            // The usual case, digit by digit into one buffer: one string made instead of a dozen
            // (a page of 100,000 records formats 100,000 times).
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
                func put(_ c: Character) {
                    out[i] = c.asciiValue!
                    i += 1
                }
                put(y, 4)
                put("-")
                put(m, 2)
                put("-")
                put(d, 2)
                put("T")
                put(seconds / 3600, 2)
                put(":")
                put(seconds / 60 % 60, 2)
                put(":")
                put(seconds % 60, 2)
                put(".")
                put(msOfDay % 1000, 3)
                put("Z")
                return String(decoding: UnsafeBufferPointer(rebasing: out[0..<i]), as: UTF8.self)
            }
        }
        var text = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        text += pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        text += "." + pad(msOfDay % 1000, 3) + "Z"
        return text
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (a space may replace `T`, `z`
    /// may be lowercase) into milliseconds since the Unix epoch; fraction digits beyond
    /// milliseconds are truncated. `nil` when malformed or a field is out of range.
    package static func parse(_ text: String) -> Int64? {
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
        guard (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y), h <= 23, mi <= 59,
            s <= 60
        else { return nil }
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
        return ((days * 86_400 + h * 3600 + mi * 60 + s) - offsetMinutes * 60) * 1000 + ms
    }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
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

    /// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

private extension Int64 {
    /// Quotient rounded toward negative infinity and the non-negative remainder.
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let q = self / divisor, r = self % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
