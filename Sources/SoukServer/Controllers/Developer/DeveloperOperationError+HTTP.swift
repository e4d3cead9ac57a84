import Hummingbird

/// A developer operation's refusal as HTTP: problem JSON (or, for a browser, the error page that
/// `StorefrontErrorPages` makes of it) with 404, 403 or 400.
extension DeveloperOperationError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .invalid: .badRequest
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try Problem(status, description).response(from: request, context: context)
    }
}
