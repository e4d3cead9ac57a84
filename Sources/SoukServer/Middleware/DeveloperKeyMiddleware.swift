import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The developer API's authentication (docs/developers.md, "API keys"): `Authorization: Bearer sk_…`
/// is looked up by its SHA-256 (`DeveloperDirectory.authenticate`) and becomes the request's
/// `SoukActor.developerKey`. No key, or one that is unknown or revoked, is a `401` problem with a
/// `WWW-Authenticate: Bearer` challenge; a database outage is the `503` of `ProblemMiddleware`.
struct DeveloperKeyMiddleware: RouterMiddleware {
    typealias Context = DeveloperRequestContext
    let directory: DeveloperDirectory
    let realm: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Problem(.unauthorized, "This request needs a developer API key (Authorization: Bearer sk_…).",
                          challenge: "Bearer realm=\"\(realm)\"")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        let secret = parts.count == 2 && parts[0].lowercased() == "bearer" ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard let key = try await directory.authenticate(secret: secret) else {
            throw Problem(.unauthorized, "The API key is not valid: unknown or revoked.",
                          challenge: "Bearer realm=\"\(realm)\", error=\"invalid_token\"")
        }
        var context = context
        context.actor = .developerKey(keyID: key.id, developerID: key.developerID, scopes: key.scopes)
        return try await next(request, context)
    }
}
