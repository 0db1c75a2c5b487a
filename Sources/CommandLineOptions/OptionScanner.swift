/// Splits a command's arguments into option values and positional arguments: the one option
/// scanner of `mock-apns` (`serve`'s options from the settings table, `send`, `jwt`). Spelling:
/// `--name VALUE` or `--name=VALUE`, flags without a value, a value never starting with `--`
/// (a single dash may start one: `--clock-offset -4000`). Each command checks and converts the
/// values itself, and phrases its own messages from the `Failure` cases.
public struct OptionScanner: Sendable {
    /// One option: its name, the placeholder of its value (nil for a flag), and whether it may repeat.
    public struct Option: Sendable {
        /// The name with its dashes, e.g. `--count`.
        public let name: String
        /// The placeholder of the value in messages, e.g. `N`; nil for a flag.
        public let value: String?
        /// True when the option may be given more than once (values kept in order).
        public var repeatable: Bool

        /// An option named `name` taking a value shown as `value` (nil: a flag).
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
        /// A non-repeatable option given a second time.
        case repeated(String)
        /// An option that takes a value given none (or, unless empty values are allowed, an
        /// empty one): its name and its placeholder.
        case missingValue(String, placeholder: String)
        /// A flag given `=VALUE`.
        case valueForFlag(String)

        /// What is wrong, naming the option or argument, as `send` and `jwt` word it (a command
        /// may phrase it its own way).
        public var message: String {
            switch self {
            case .unknownOption(let name): "unknown option '\(name)'"
            case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
            case .repeated(let name): "\(name) is given more than once"
            case .missingValue(let name, let placeholder): "\(name) needs a value (\(placeholder))"
            case .valueForFlag(let name): "\(name) takes no value"
            }
        }
    }

    /// What was given: each option's values in order (`""` for a flag), and the positional arguments.
    public struct Scanned: Sendable {
        /// Values by option name, in argument order.
        public var values: [String: [String]] = [:]
        /// The positional arguments, in order.
        public var positional: [String] = []
    }

    /// Every option, in the order of the help text.
    public let options: [Option]
    /// When true, arguments that are not options (`-` or not starting with `-`, or anything
    /// after `--`) are positional; when false, every argument not starting with
    /// `optionsStartWith` (and `-` itself) is a `Failure.unexpectedArgument`.
    public let takesPositional: Bool
    /// Without positional arguments: the prefix that makes an argument an option (`--`, or `-`
    /// for a command whose unknown `-x` should be named as an option).
    public let optionsStartWith: String
    /// When false, an empty value (`--name=` or `--name ""`) is `Failure.missingValue`.
    public let emptyValuesAllowed: Bool

    /// A scanner of `options`; see the properties for the other choices.
    public init(
        options: [Option], takesPositional: Bool, optionsStartWith: String = "--", emptyValuesAllowed: Bool = true
    ) {
        self.options = options
        self.takesPositional = takesPositional
        self.optionsStartWith = optionsStartWith
        self.emptyValuesAllowed = emptyValuesAllowed
    }

    /// Scans `arguments` (without the command's name).
    /// - Throws: the first `Failure`, in argument order.
    public func scan<Arguments: Collection<String>>(_ arguments: Arguments) throws(Failure) -> Scanned {
        let arguments = Array(arguments)
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
            } else if !argument.hasPrefix(optionsStartWith) || argument == "-" {
                throw .unexpectedArgument(argument)
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.name == name }) else { throw .unknownOption(name) }
            guard option.repeatable || scanned.values[name] == nil else { throw .repeated(name) }
            let value: String
            if let placeholder = option.value {
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw .missingValue(name, placeholder: placeholder)
                }
                guard emptyValuesAllowed || !value.isEmpty else { throw .missingValue(name, placeholder: placeholder) }
            } else {
                guard inlineValue == nil else { throw .valueForFlag(name) }
                value = ""
            }
            scanned.values[name, default: []].append(value)
        }
        return scanned
    }
}
