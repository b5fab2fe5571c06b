/// Why a line could not be read as a ``FeedRecord``.
///
/// Its ``description`` is one sentence meant for people, such as
/// `missing field "typeName" in an event record`.
public enum FeedDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line is longer than ``FeedRecord/maximumLineLength`` bytes.
    case lineTooLong(length: Int, limit: Int)
    /// The line is not valid UTF-8.
    case invalidUTF8
    /// The line is not valid JSON; `offset` is the byte where reading stopped.
    case malformedJSON(reason: String, offset: Int)
    /// The line is valid JSON but not an object.
    case notAnObject
    /// The object has no `kind` field, or its `kind` is not a string.
    case missingKind
    /// The `kind` is not one this version knows, or it is a `lifecycle` record whose `change`
    /// this version does not know (then the string is `lifecycle <change>`); readers skip such
    /// lines to stay compatible with newer writers.
    case unknownKind(String)
    /// A field a record of this kind needs is absent.
    case missingField(field: String, kind: String)
    /// A field holds the wrong JSON type.
    case wrongType(field: String, kind: String, expected: String, found: String)
    /// A number does not fit the field: not an integer, too large, negative, or not finite.
    case invalidNumber(field: String, kind: String, reason: String)
    /// A string field holds a value the field does not allow.
    case invalidValue(field: String, kind: String, value: String)

    /// A one-sentence account of the problem.
    public var description: String {
        switch self {
        case .lineTooLong(let length, let limit):
            // A reader stops at the limit's double: the line may be longer still.
            return "line is longer than the limit of \(limit) bytes (at least \(length) bytes)"
        case .invalidUTF8:
            return "line is not valid UTF-8"
        case .malformedJSON(let reason, let offset):
            return "malformed JSON at byte \(offset + 1): \(reason)"
        case .notAnObject:
            return "expected a JSON object, one per line"
        case .missingKind:
            return "expected a string field \"kind\""
        case .unknownKind(let kind):
            return "unknown record kind \"\(kind)\""
        case .missingField(let field, let kind):
            return "missing field \"\(field)\" in \(Self.article(kind)) \(kind) record"
        case .wrongType(let field, let kind, let expected, let found):
            return
                "field \"\(field)\" of \(Self.article(kind)) \(kind) record should be \(expected), found \(found)"
        case .invalidNumber(let field, let kind, let reason):
            return "field \"\(field)\" of \(Self.article(kind)) \(kind) record \(reason)"
        case .invalidValue(let field, let kind, let value):
            let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "field \"\(field)\" of \(Self.article(kind)) \(kind) record has unknown value \"\(shown)\""
        }
    }

    private static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }
}
