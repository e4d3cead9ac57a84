import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the person's access token as `Authorization: Bearer` (RFC 6750 §2.1), never in the query,
/// and not to the OAuth endpoints, which authenticate by what the body carries.
struct BearerTokenMiddleware: ClientMiddleware {
    static let withoutToken: Set<String> = [
        Operations.Token.id, Operations.RevokeToken.id, Operations.GetOAuthMetadata.id,
    ]
    let accessToken: @Sendable () async throws -> String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if !Self.withoutToken.contains(operationID), request.headerFields[.authorization] == nil, let token = try await accessToken() {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}
