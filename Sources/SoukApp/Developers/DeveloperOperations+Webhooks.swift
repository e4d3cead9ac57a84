import Foundation
import SoukCore
import SoukStore

extension DeveloperOperations {
    /// The webhook endpoints of one of the organisation's catalogs, oldest first (secrets never shown).
    public func webhooks(actor: SoukActor, app: String) async throws -> [WebhookEndpoint] {
        _ = try await ownership.catalog(app, for: actor, scope: .webhooksWrite)
        return try await WebhookStore(database: database).endpoints(app: app)
    }

    /// Sends the app's lifecycle events from now on to `url`, signed with `secret`: for a developer
    /// actor one of its organisation's catalogs (`webhooks:write`), for the operator's side (`souk
    /// webhooks add`) any app.
    public func addWebhook(actor: SoukActor, app: String, url: String, secret: String) async throws -> WebhookEndpoint {
        try DeveloperOwnership.authorize(actor, .webhooksWrite)
        try await ownership.reach(catalog: app, for: actor)
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

    /// Queues one event of `app` again to each endpoint that was subscribed when it happened (same
    /// event id, a new retry window) and answers how many. For every staff member (support too: a
    /// redelivery sends again what was sent, and changes nothing of the developer's), the CLI, and a
    /// developer actor on its organisation's catalog (`webhooks:write`).
    @discardableResult
    public func redeliverWebhookEvent(actor: SoukActor, app: String, event: UUID) async throws -> Int {
        try DeveloperOwnership.authorizeReading(actor, .webhooksWrite)
        try await ownership.reach(catalog: app, for: actor)
        let queued: Int
        do {
            queued = try await WebhookStore(database: database).redeliver(app: app, event: event)
        } catch let error as WebhookStoreError {
            throw DeveloperOperationError.notFound(error.description)
        }
        try await audit.record(actor: actor.auditName, action: .webhookRedeliver, target: "catalog:\(app)",
                               after: ["event": event.uuidString.lowercased(), "deliveries": String(queued)])
        return queued
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
