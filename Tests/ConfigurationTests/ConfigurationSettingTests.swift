import Foundation
import TestSupport
import XCTest

@testable import Configuration

/// `ConfigurationSetting.all`, the one table of settings, against the readers and README.
final class ConfigurationSettingTests: XCTestCase {
    /// README "Configuration": the flag table's rows, as the flags each row's first cell names
    /// (`--tls-cert FILE --tls-key FILE` names two) with the text after each flag, and the row.
    private func readmeRows() throws -> [(flag: String, value: String, row: String)] {
        let readme = try String(contentsOfFile: RepositoryPaths.path("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(
            readme.components(separatedBy: "\n## Configuration\n").dropFirst().first?
                .components(separatedBy: "\n## ").first)
        var rows: [(String, String, String)] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `-") {
            // The first cell ends at the first " | "; the flags are its code spans.
            let firstCell = String(line.dropFirst(2)).components(separatedBy: " | ").first ?? ""
            for span in firstCell.components(separatedBy: "`").enumerated() where span.offset % 2 == 1 {
                let parts = span.element.replacingOccurrences(of: "\\|", with: "|").components(separatedBy: " --")
                for (index, part) in parts.enumerated() {
                    let text = index == 0 ? part : "--" + part
                    let words = text.split(separator: " ", maxSplits: 1).map(String.init)
                    rows.append((words[0], words.count > 1 ? words[1] : "", String(line)))
                }
            }
        }
        return rows
    }

    func testREADMEListsEveryFlagOfTheTableAndOnlyThose() throws {
        let rows = try readmeRows()
        let documented = Set(rows.map(\.flag))
        let flags = Set(ConfigurationSetting.all.compactMap(\.flag) + ["--help", "--version"])
        XCTAssertEqual(documented.subtracting(flags), [], "README documents flags the table does not have")
        XCTAssertEqual(flags.subtracting(documented), [], "README lacks flags of the table")
        for setting in ConfigurationSetting.all {
            guard let flag = setting.flag, let row = rows.first(where: { $0.flag == flag }) else { continue }
            // The value as --help shows it, or its choices.
            let accepted = [setting.placeholder ?? "", setting.choices.joined(separator: "|")]
            XCTAssertTrue(
                accepted.contains(row.value) || (setting.placeholder == nil && row.value.isEmpty),
                "README shows \(flag) \(row.value), the table \(setting.placeholder ?? "no value")")
            // A number's or a choice's default is stated.
            switch setting.kind {
            case .integer, .choice, .seconds:
                if let value = setting.defaultText, value.first?.isNumber == true || setting.choices.contains(value) {
                    XCTAssertTrue(row.row.contains(value), "README's \(flag) row lacks its default \(value)")
                }
            default: break
            }
        }
    }

    func testTheParserTheHelpAndTheFileTakeTheTablesNames() throws {
        let flags = ConfigurationSetting.all.compactMap(\.flag)
        XCTAssertEqual(Array(CommandLineParser.options.map(\.name).prefix(flags.count)), flags)
        XCTAssertEqual(Set(flags).count, flags.count, "a flag is in the table twice")
        let help = CommandLineHelp.text
        for setting in ConfigurationSetting.all {
            if let flag = setting.flag {
                XCTAssertTrue(help.contains("  " + flag), "help lacks \(flag)")
            }
            if let defaultText = setting.defaultText {
                XCTAssertTrue(
                    help.replacingOccurrences(of: "\n" + String(repeating: " ", count: 31), with: " ")
                        .contains("Default: \(defaultText)."),
                    "help lacks the default of \(setting.flag ?? "?")")
            }
        }
        XCTAssertEqual(
            Set(ConfigurationFile.topLevelKeys),
            [
                "listeners", "control", "maxRecords", "maxEvents", "maxFaultRules", "maxGateways", "gatewayMaxRecords",
                "controlIdleTimeoutSeconds", "controlMaxStreams", "controlStreamBufferBytes",
                "registry", "tokenLength",
                "maxTokenLength",
                "lintsAsErrors", "invalidPayloadReason", "devices", "http2", "workers", "logLevel",
                "drainTimeoutSeconds", "keys", "clockOffsetSeconds", "faults", "scenarios", "idleTimeoutSeconds",
                "idleAction", "deviceModel", "binary", "feedback", "readyFile", "broadcast", "journal", "journalSync",
            ])
    }

    /// An integer setting's range is the one both readers and validation apply.
    func testIntegerRangesComeFromTheTable() throws {
        for setting in ConfigurationSetting.all {
            guard case .integer(let range) = setting.kind, let key = setting.fileKey, range.upperBound < Int.max,
                setting.flag != "--token-length"
            else { continue }
            let above = range.upperBound + 1
            if let flag = setting.flag {
                XCTAssertThrowsError(try CommandLineParser.parse([flag, String(above)]), flag) {
                    XCTAssertEqual(
                        ($0 as? CommandLineError)?.message,
                        "\(flag): expected an integer from \(range.lowerBound) to \(range.upperBound), got '\(above)'")
                }
                XCTAssertNoThrow(try CommandLineParser.parse([flag, String(range.upperBound)]), flag)
            }
            let path = key.split(separator: ".")
            let json = path.count == 2 ? #"{"\#(path[0])": {"\#(path[1])": \#(above)}}"# : #"{"\#(key)": \#(above)}"#
            XCTAssertThrowsError(try parseConfiguration(json), json) {
                XCTAssertEqual(
                    ($0 as? ConfigurationError)?.description,
                    "\(key): expected an integer from \(range.lowerBound) to \(range.upperBound), got \(above)")
            }
        }
    }

    /// The one table both readers walk for plain integer settings names, for each, the file key
    /// and the flag of one and the same setting.
    func testEachPlainIntegerFieldIsOneSettingsFileKeyAndFlag() {
        for setting in Configuration.integerFields {
            XCTAssertEqual(ConfigurationSetting.file(setting.file).flag, setting.flag, setting.file)
        }
    }
}
