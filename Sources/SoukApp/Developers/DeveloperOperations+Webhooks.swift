import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The webhook endpoints of one of the organisation's catalogs, oldest first (secrets never shown).
    public func webhooks(actor: SoukActor, app: String) async throws -> [WebhookEndpoint] {
        _ = try await ownership.catalog(app, for: actor, scope: .webhooksWrite)
        return try await WebhookStore(database: database).endpoints(app: app)
    }

    /// Sends the catalog's lifecycle events from now on to `url`, signed with `secret`, through the
    /// same store as `souk webhooks add`.
    public func addWebhook(actor: SoukActor, app: String, url: String, secret: String) async throws -> WebhookEndpoint {
        _ = try await ownership.catalog(app, for: actor, scope: .webhooksWrite)
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
        let store = WebhookStore(database: database)
        let endpoint = try await webhookEndpoint(actor: actor, id: id)
        guard try await store.remove(app: endpoint.app, id: id) else {
            throw DeveloperOperationError.notFound("No webhook \(id.uuidString.lowercased()) is yours.")
        }
        try await audit.record(actor: actor.auditName, action: .webhookRemove, target: "catalog:\(endpoint.app)",
                               before: ["endpoint": id.uuidString.lowercased(), "url": endpoint.url])
    }

    /// The latest deliveries (newest first, at most `limit`) of one of the organisation's catalogs:
    /// each event to each endpoint with its status, attempts, last answer and next retry.
    public func webhookDeliveries(actor: SoukActor, app: String, limit: Int = 100) async throws -> [WebhookDelivery] {
        _ = try await ownership.catalog(app, for: actor, scope: .webhooksWrite)
        return try await WebhookStore(database: database).deliveries(app: app, limit: limit)
    }

    /// The webhook endpoint `id` when the actor may manage it (`webhooks:write`, its organisation's catalog).
    public func webhookEndpoint(actor: SoukActor, id: UUID) async throws -> WebhookEndpoint {
        try DeveloperOwnership.authorize(actor, .webhooksWrite)
        let notFound = DeveloperOperationError.notFound("No webhook \(id.uuidString.lowercased()) is yours.")
        guard let endpoint = try await WebhookStore(database: database).endpoints().first(where: { $0.id == id }) else { throw notFound }
        do {
            try await ownership.reach(catalog: endpoint.app, for: actor)
        } catch DeveloperOperationError.notFound {
            throw notFound
        }
        return endpoint
    }
}
