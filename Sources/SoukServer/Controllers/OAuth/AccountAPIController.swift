import Foundation
import Hummingbird
import SoukStore

/// `GET /api/v1/account`: who a bearer token belongs to. The simplest protected endpoint, and the
/// one a client can call to check that its token still works.
struct AccountAPIController<Context: BearerRequestContext> {
    let bearer: BearerAuthenticator
    let catalog: CatalogStore
    /// Devices, purchases, memberships and entitlements (`AccountAPIDetails`), when wired.
    var details: AccountAPIDetails? = nil

    /// `group` is `api/v1/account`: every route in it needs a valid bearer token (`BearerMiddleware`).
    func addRoutes(to group: RouterGroup<Context>) {
        group.add(middleware: BearerMiddleware(authenticator: bearer))
        group.get("", use: account)
    }

    @Sendable func account(_ request: Request, context: Context) async throws -> Response {
        guard let identity = context.bearer else { throw BearerChallenge(status: .unauthorized, realm: bearer.realm) }
        guard let account = try await catalog.people.account(id: identity.accountID) else {
            throw BearerChallenge(status: .forbidden, realm: bearer.realm)
        }
        var fields: [String: Any] = ["email": account.email, "clientId": identity.clientId, "scope": identity.scope]
        if let details { fields.merge(try await details.fields(account)) { own, _ in own } }
        return .json(fields, cacheControl: "no-store")
    }
}
