/// Splits a subcommand's arguments into option values and positional arguments, the way
/// `mock-apns send` and `mock-apns jwt` (APNsTools) spell them: `--name VALUE` or
/// `--name=VALUE`, flags without a value, a value never starting with `--`. Each command checks
/// and converts the values itself, and phrases its own message for an unknown option.
public struct OptionScanner: Sendable {
    /// One option: its name, the placeholder of its value (nil for a flag), and whether it may repeat.
    public struct Option: Sendable {
        public let name: String
        public let value: String?
        public var repeatable: Bool

        public init(name: String, value: String?, repeatable: Bool = false) {
            self.name = name
            self.value = value
            self.repeatable = repeatable
        }
    }

    /// The first thing wrong with the arguments, in their order.
    public enum Failure: Error, Equatable {
        /// An option name that is not in the table (the name without any `=VALUE`).
        case unknownOption(String)
        /// A positional argument given to a command that takes none.
        case unexpectedArgument(String)
        /// A known option misused, the message naming it: given twice, missing its value, or a
        /// value given to a flag.
        case misused(String)

        /// What is wrong, naming the option or argument (a command may phrase it its own way).
        public var message: String {
            switch self {
            case .unknownOption(let name): "unknown option '\(name)'"
            case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
            case .misused(let message): message
            }
        }
    }

    /// What was given: each option's values in order (`""` for a flag), and the positional arguments.
    public struct Scanned: Sendable {
        public var values: [String: [String]] = [:]
        public var positional: [String] = []
    }

    /// Every option, in the order of the help text.
    public let options: [Option]
    /// When true, arguments that are not options (`-` or not starting with `-`, or anything
    /// after `--`) are positional; when false, every argument not starting with `--` is a
    /// `Failure.unexpectedArgument`.
    public let takesPositional: Bool

    public init(options: [Option], takesPositional: Bool) {
        self.options = options
        self.takesPositional = takesPositional
    }

    /// Scans `arguments` (without the command's name).
    /// - Throws: the first `Failure`, in argument order.
    public func scan(_ arguments: [String]) throws(Failure) -> Scanned {
        var scanned = Scanned()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if takesPositional {
                if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                    scanned.positional.append(argument)
                    continue
                }
                if argument == "--" {
                    optionsEnded = true
                    continue
                }
            } else if !argument.hasPrefix("--") {
                throw .unexpectedArgument(argument)
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.name == name }) else { throw .unknownOption(name) }
            guard option.repeatable || scanned.values[name] == nil else {
                throw .misused("\(name) is given more than once")
            }
            let value: String
            if let placeholder = option.value {
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw .misused("\(name) needs a value (\(placeholder))")
                }
            } else {
                guard inlineValue == nil else { throw .misused("\(name) takes no value") }
                value = ""
            }
            scanned.values[name, default: []].append(value)
        }
        return scanned
    }
}
