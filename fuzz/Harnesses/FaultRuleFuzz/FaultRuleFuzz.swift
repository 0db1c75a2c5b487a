import Faults
import Foundation
import FuzzSupport

/// The fault-rule decoder (`FaultRule.decode(json:)`, as `POST /v1/faults` reads a body, and
/// `decodeList` for a configuration file's `faults`): any bytes give rules or a
/// `FaultRuleError`. A rule that decodes and validates must encode to JSON that decodes back to
/// the same rule (what `GET /v1/faults` shows can be posted again).
@_cdecl("LLVMFuzzerTestOneInput")
public func faultRuleFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    var rules: [FaultRule] = []
    if let rule = try? FaultRule.decode(json: bytes) { rules.append(rule) }
    if let list = try? FaultRule.decodeList(json: bytes) { rules += list }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    for rule in rules {
        guard (try? rule.validate()) != nil else { continue }
        guard let encoded = try? encoder.encode(rule) else { preconditionFailure("a valid rule does not encode") }
        let back: FaultRule
        do {
            back = try FaultRule.decode(json: Array(encoded))
        } catch {
            preconditionFailure("a valid rule's JSON is refused: \(error): \(String(decoding: encoded, as: UTF8.self))")
        }
        precondition(back == rule, "a rule changed through its JSON: \(String(decoding: encoded, as: UTF8.self))")
    }
    return 0
}

@_cdecl("FaultRuleFuzz_main")
public func faultRuleFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, faultRuleFuzz)
}
