import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The organisation's API keys (`/developer/keys`, owners only; a member gets 403): make one with
/// its scopes as checkboxes (the key is shown once, on the page that answers the form), the list
/// (name, scopes, last four characters, last use) and revoking.
extension DeveloperConsoleController {
    func addKeyRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("keys", use: keysPage)
        routes.members.post("keys", use: createKey)
        routes.members.post("keys/:key/revoke", use: revokeKey)
    }

    @Sendable func keysPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let notice = request.uri.queryParameters["done"] == "revoked" ? "Key revoked: it no longer signs in." : nil
        return try await keysList(session: session, notice: notice, error: nil, secret: nil, status: .ok)
    }

    func keysList(session: DeveloperSession, notice: String?, error: String?, secret: String?, status: HTTPResponse.Status) async throws -> Response {
        let format = WebPage.format
        let keys = try await DeveloperKeyOperations(services: services).list(actor: session.actor)
        let values = DeveloperKeysValues(
            keys: keys.map { key in
                .init(id: DeveloperKeyOperations.id(key.id), name: key.name,
                      scopes: DeveloperScope.format(key.scopes).replacingOccurrences(of: ",", with: ", "), hint: key.hint,
                      lastUsed: key.lastUsedAt.map(format) ?? "never", created: format(key.createdAt),
                      revoked: key.revokedAt.map(format) ?? "", live: key.revokedAt == nil)
            },
            scopes: DeveloperScope.allCases.map { .init(value: $0.rawValue, field: Self.scopeField($0)) },
            notice: notice, error: error, secret: secret)
        return try await render(.developerKeys, session: session, title: "API keys", page: values, status: status)
    }

    /// Makes a key and shows it once.
    @Sendable func createKey(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        // One checkbox a scope, each its own field (a form may not repeat a name).
        let scopes = Set(DeveloperScope.allCases.filter { form[Self.scopeField($0)] != nil })
        do {
            let made = try await DeveloperKeyOperations(services: services).create(actor: session.actor, name: form["name"] ?? "", scopes: scopes)
            return try await keysList(session: session, notice: "Key “\(made.key.name)” made. Copy it now: it is shown only this once.",
                                      error: nil, secret: made.secret, status: .ok)
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await keysList(session: session, notice: nil, error: message, secret: nil, status: .badRequest)
        }
    }

    /// The checkbox of a scope: `scope-packages-write`.
    static func scopeField(_ scope: DeveloperScope) -> String { "scope-" + scope.rawValue.replacingOccurrences(of: ":", with: "-") }

    @Sendable func revokeKey(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await memberForm(request, context: context)
        guard let id = context.parameters.get("key").flatMap(UUID.init(uuidString:)) else {
            throw DeveloperOperationError.notFound("No key of yours has this id.")
        }
        try await DeveloperKeyOperations(services: services).revoke(actor: session.actor, keyID: id)
        return WebPage.seeOther("/developer/keys?done=revoked")
    }
}
