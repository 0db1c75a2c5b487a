/// An error of a model's own type that carries a field path, for models that report their
/// errors in their domain's type (a configuration error, a fault rule error) from inside
/// `init(from:)`. `StrictJSONDecoder` passes it on as `inputError`, unchanged, as it does an
/// `InputError`; without the conformance the error's description would become the message of
/// an `InputError` at the path of the value being decoded, its own path repeated in it.
public protocol InputErrorConvertible: Error {
    /// The error as `StrictJSONDecoder` reports it: the field path (`listeners[0].port`, from
    /// the document's root) and the message.
    var inputError: InputError { get }
}
