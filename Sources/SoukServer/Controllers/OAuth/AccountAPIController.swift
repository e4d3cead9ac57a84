import Foundation
import Hummingbird
import SoukStore

/// `GET /api/v1/account`: who a bearer token belongs to. The simplest protected endpoint, and the
/// one a client can call to check that its token still works.
struct AccountAPIController<Context: RequestContext> {
    let bearer: BearerAuthenticator
    let catalog: CatalogStore
    /// Devices, purchases, memberships and entitlements (`AccountAPIDetails`), when wired.
    var details: AccountAPIDetails? = nil

    func addRoutes(to router: Router<Context>) {
        router.get("api/v1/account", use: account)
    }

    @Sendable func account(_ request: Request, context: Context) async throws -> Response {
        let identity = try await bearer.requireBearer(request)
        guard let account = try await catalog.account(id: identity.accountID) else {
            throw BearerChallenge(status: .forbidden, realm: bearer.realm)
        }
        var fields: [String: Any] = ["email": account.email, "clientId": identity.clientId, "scope": identity.scope]
        if let details { fields.merge(try await details.fields(account)) { own, _ in own } }
        return .json(fields, cacheControl: "no-store")
    }
}
