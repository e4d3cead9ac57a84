import SoukCore

/// Why a developer operation did not happen, said so that each face answers it the same way: the
/// API as `404`, `403`, `422` or `400` problems, the CLI as a message (docs/developers.md).
public enum DeveloperOperationError: Error, Equatable, CustomStringConvertible {
    /// No such thing, or not the actor's organisation's: the two are the same answer, so an id of
    /// another organisation says nothing about whether it exists.
    case notFound(String)
    /// A developer API key without the scope the operation needs.
    case missingScope(DeveloperScope)
    /// The actor may not do this at all (support staff changing a developer's things, a member who
    /// is not an owner managing keys, a developer actor on the operator's operations).
    case notAllowed(String)
    /// Input the operation refuses, naming the field (or the JSON path, or the package file) at fault.
    case invalid(field: String, String)
    /// A query parameter that cannot be read.
    case badParameter(field: String, String)

    public var description: String {
        switch self {
        case .notFound(let what): what
        case .missingScope(let scope): "This API key lacks the scope \(scope.rawValue)."
        case .notAllowed(let why): why
        case .invalid(let field, let problem), .badParameter(let field, let problem): "\(field): \(problem)"
        }
    }
}
