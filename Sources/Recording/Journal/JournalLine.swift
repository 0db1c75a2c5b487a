import Foundation

/// The journal's line format (README "Journal"): newline-delimited JSON, one object a line.
///
/// - The first line names the format: `{"journal":"mock-apns","version":1}`.
/// - A record: `{"seq":12,"apnsId":"…","status":200,"check":"<FNV-1a 64 of the bytes, hex>",
///   "record":"<base64 of the compact record>"}`. The `record` string is the store's own
///   encoding (`CompactRecord`), so what is read back equals what was stored, byte for byte:
///   headers and payload as received, ids, receive time, answer, fault and identity.
///   `apnsId` and `status` are there for people and scripts (`grep`, `jq`); reading uses only
///   `seq`, `check` and `record`. A correction adds `"corrected":true` and replaces the line of
///   its seq.
/// - A clear (`DELETE /v1/deliveries`): `{"clear":true,"lastSeq":40}`.
///
/// The compact layout may change between versions of MockAPNs; `version` says which one wrote
/// the file, and a journal of another version is refused at start rather than misread.
package enum JournalLine {
    /// The format version this build writes and reads.
    package static let version = 1

    /// The first line of every journal, with its newline.
    package static let header = Array("{\"journal\":\"mock-apns\",\"version\":\(version)}\n".utf8)

    /// What one line says.
    package enum Parsed: Equatable {
        /// The first line: the format version.
        case header(version: Int)
        /// A record (or, `corrected`, a correction of the record of that seq).
        case record(seq: UInt64, bytes: [UInt8], corrected: Bool)
        /// A clear; numbering goes on after `lastSeq`.
        case clear(lastSeq: UInt64)
    }

    /// Appends the line of `entry`, with its newline, to `out`.
    package static func append(_ entry: JournalEntry, to out: inout [UInt8]) {
        switch entry {
        case .record(let seq, let record):
            appendRecord(seq: seq, record, corrected: false, to: &out)
        case .correction(let seq, let record):
            appendRecord(seq: seq, record, corrected: true, to: &out)
        case .clear(let lastSeq):
            out += Array("{\"clear\":true,\"lastSeq\":\(lastSeq)}\n".utf8)
        }
    }

    private static func appendRecord(seq: UInt64, _ record: CompactRecord, corrected: Bool, to out: inout [UInt8]) {
        let bytes = record.bytes
        let decoded = record.decoded(seq: seq)
        var line = "{\"seq\":\(seq)"
        if corrected { line += ",\"corrected\":true" }
        // Generated or validated ids are UUIDs; anything else is left out rather than escaped.
        if decoded.apnsID.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || isHexDigit($0) }) {
            line += ",\"apnsId\":\"\(decoded.apnsID)\""
        }
        line += ",\"status\":\(decoded.status),\"check\":\"\(checkText(bytes))\",\"record\":\""
        out += Array(line.utf8)
        out += Array(Data(bytes).base64EncodedString().utf8)
        out += Array("\"}\n".utf8)
    }

    /// Reads one line (without its newline).
    /// - Throws: a message saying what is wrong (`not valid JSON`, `check does not match the record`, ...).
    package static func parse(_ line: ArraySlice<UInt8>) throws(JournalLineProblem) -> Parsed {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw JournalLineProblem(message: "not a JSON object")
            }
            object = parsed
        } catch let problem as JournalLineProblem {
            throw problem
        } catch {
            throw JournalLineProblem(message: "not valid JSON")
        }
        if let name = object["journal"] {
            guard name as? String == "mock-apns", let version = integer(object["version"]) else {
                throw JournalLineProblem(message: "not a mock-apns journal header")
            }
            return .header(version: Int(version))
        }
        if object["clear"] as? Bool == true {
            guard let lastSeq = integer(object["lastSeq"]) else {
                throw JournalLineProblem(message: "a clear without lastSeq")
            }
            return .clear(lastSeq: lastSeq)
        }
        guard let seq = integer(object["seq"]), seq > 0 else {
            throw JournalLineProblem(message: "no seq (a positive integer)")
        }
        guard let text = object["record"] as? String, let data = Data(base64Encoded: text), !data.isEmpty else {
            throw JournalLineProblem(message: "no record (base64 of a compact record)")
        }
        let bytes = [UInt8](data)
        guard object["check"] as? String == checkText(bytes) else {
            throw JournalLineProblem(message: "check does not match the record (a damaged line)")
        }
        return .record(seq: seq, bytes: bytes, corrected: object["corrected"] as? Bool == true)
    }

    /// A non-negative integer from JSONSerialization's number, or nil.
    private static func integer(_ value: Any?) -> UInt64? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double >= 0, double == double.rounded(), double < 1.8e19 else { return nil }
        return number.uint64Value
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// FNV-1a 64 of `bytes`, 16 hex digits: catches a damaged line before its bytes are decoded
    /// (the compact reader traps on malformed bytes, by design: the store's are always its own).
    package static func checkText(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
