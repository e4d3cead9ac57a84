import Hummingbird
import SoukApp
import SoukStore

/// How the developer API answers an operation's refusal: another organisation's id and a missing
/// one are the same `404`; a key without the scope `403`; bad input a `422` naming the field.
extension DeveloperOperationError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .missingScope, .notAllowed: .forbidden
        case .invalid: .unprocessableContent
        case .badParameter: .badRequest
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var problem = Problem(status, description)
        switch self {
        case .invalid(let field, let detail), .badParameter(let field, let detail):
            problem.detail = detail
            problem.field = field
        case .missingScope(let scope):
            problem.type = "urn:souk:problem:missing-scope"
            problem.detail = "This API key lacks the scope \(scope.rawValue)."
        case .notFound, .notAllowed:
            break
        }
        return try problem.response(from: request, context: context)
    }
}

extension DeveloperDirectoryError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch self {
        case .unknownDeveloper, .unknownAccount: .notFound
        case .idTaken, .alreadyMember: .conflict
        case .invalidID, .invalidName, .invalidCommission, .invalidKeyName: .unprocessableContent
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try Problem(status, description).response(from: request, context: context)
    }
}
