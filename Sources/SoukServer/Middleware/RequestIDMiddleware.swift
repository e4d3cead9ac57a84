import HTTPTypes
import Hummingbird

/// Echoes the request id (the one in every log line of the request) as `X-Request-Id`.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    static var header: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.header] = context.id
        return response
    }
}
