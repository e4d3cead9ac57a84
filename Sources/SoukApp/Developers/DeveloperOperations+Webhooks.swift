import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The webhook endpoints of one of the organisation's catalogs, oldest first (secrets never shown).
    public func webhooks(actor: SoukActor, app: String) async throws -> [WebhookEndpoint] {
        _ = try await ownedCatalog(app, actor: actor, scope: .webhooksWrite)
        return try await WebhookStore(database: database).endpoints(app: app)
    }

    /// Sends the catalog's lifecycle events from now on to `url`, signed with `secret`, through the
    /// same store as `souk webhooks add`.
    public func addWebhook(actor: SoukActor, app: String, url: String, secret: String) async throws -> WebhookEndpoint {
        _ = try await ownedCatalog(app, actor: actor, scope: .webhooksWrite)
        let endpoint: WebhookEndpoint
        do {
            endpoint = try await WebhookStore(database: database).add(app: app, url: url, secret: secret)
        } catch let error as WebhookStoreError {
            let field = error.description.localizedCaseInsensitiveContains("secret") ? "secret" : "url"
            throw DeveloperOperationError.invalid(field: field, error.description)
        }
        try await audit.record(actor: actor.auditName, action: .webhookAdd, target: "catalog:\(app)",
                               after: ["endpoint": endpoint.id.uuidString.lowercased(), "url": url])  // never the secret
        return endpoint
    }

    /// Removes one of the organisation's webhook endpoints and its deliveries.
    public func removeWebhook(actor: SoukActor, id: UUID) async throws {
        try authorize(actor, .webhooksWrite)
        let store = WebhookStore(database: database)
        let notFound = DeveloperOperationError.notFound("No webhook \(id.uuidString.lowercased()) is yours.")
        guard let endpoint = try await store.endpoints().first(where: { $0.id == id }) else { throw notFound }
        if let developer = actor.developerID {
            guard try await directory.owner(catalog: endpoint.app) == developer else { throw notFound }
        }
        guard try await store.remove(app: endpoint.app, id: id) else { throw notFound }
        try await audit.record(actor: actor.auditName, action: .webhookRemove, target: "catalog:\(endpoint.app)",
                               before: ["endpoint": id.uuidString.lowercased(), "url": endpoint.url])
    }
}
