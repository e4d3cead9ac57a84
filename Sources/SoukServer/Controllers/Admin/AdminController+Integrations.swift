import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `/admin/integrations`: what comes in and goes out — App Store Connect events, each store's
/// settings health and notifications, outgoing webhook deliveries (redeliver: support and
/// operators) — and the install verification keys (rotate: operators). Secrets never appear:
/// store settings show their state only, keys their public half.
extension AdminController {
    static var integrationRows: Int { 20 }

    func addIntegrationRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("integrations", use: integrations)
        routes.staff.post("integrations/redeliver", use: redeliver)
        routes.operators.post("integrations/keys/rotate", use: rotateKey)
    }

    @Sendable func integrations(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let notice = request.uri.queryParameters["done"].flatMap { Self.integrationNotices[String($0)] }
        return try await integrationsPage(session: session, request: request, notice: notice, error: nil, publicKey: nil)
    }

    static var integrationNotices: [String: String] {
        ["redelivered": "Queued again: the delivery worker sends it within seconds."]
    }

    private func integrationsPage(session: ConsoleSession, request: Request, notice: String?, error: String?, publicKey: String?,
                                  status: HTTPResponse.Status = .ok) async throws -> Response {
        let format = WebPage.format
        let apps = try await services.commerceCatalogs.store.apps()
        let chosen = request.uri.queryParameters["app"].map(String.init).flatMap { apps.contains($0) ? $0 : nil } ?? apps.first
        var values = IntegrationsValues(
            ascEvents: try await services.appStoreConnectEvents.recent(limit: Self.integrationRows).map { event in
                .init(type: event.type, state: event.state.rawValue, attempts: String(event.attempts), received: format(event.receivedAt),
                      error: event.lastError ?? "")
            },
            stores: try await services.storeStatus.list().map { status in
                .init(app: status.app, store: status.store.rawValue, ok: status.lastOkAt.map(format) ?? "never",
                      error: status.lastError.map { "\($0) (\(status.lastErrorAt.map(format) ?? ""))" } ?? "",
                      state: status.isFailing ? "failing" : "ok")
            },
            apps: apps.map { .init(app: $0, selected: $0 == chosen) },
            keys: try await services.installVerificationKeys.store.publishedKeys(
                retiredAfter: now().addingTimeInterval(-InstallVerificationKeyring.publicationGrace)).map { key in
                .init(owner: key.owner == InstallVerificationKeyRecord.marketplaceOwner ? "the marketplace" : "app \(key.owner)", kid: key.kid,
                      created: key.createdAt.map(format) ?? "-", state: key.retiredAt.map { "retired \(format($0)), still published" } ?? "signing")
            },
            notice: notice, error: error, publicKey: publicKey)
        if let chosen {
            values.app = chosen
            values.notifications = try await services.storeNotifications
                .notifications(app: chosen, limit: Self.integrationRows).map { item in
                    .init(store: item.received.store, type: item.received.type + (item.received.subtype.map { "/\($0)" } ?? ""),
                          environment: item.received.environment ?? "", status: item.status.rawValue, summary: item.summary ?? item.lastError ?? "",
                          received: format(item.receivedAt))
                }
            values.deliveries = try await services.webhooks.deliveries(app: chosen, limit: Self.integrationRows).map { delivery in
                .init(event: delivery.eventId.uuidString.lowercased(), type: delivery.eventType, url: delivery.url, status: delivery.status.rawValue,
                      attempts: String(delivery.attempts), last: delivery.lastStatus.map(String.init) ?? delivery.lastError ?? "",
                      created: format(delivery.createdAt), app: chosen)
            }
        }
        return try await render(.adminIntegrations, session: session, title: "Integrations", page: values, status: status)
    }

    /// Queues one event's webhook deliveries again (support and operators).
    @Sendable func redeliver(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let app = form["app"] ?? ""
        guard let event = form["event"].flatMap(UUID.init(uuidString:)) else { throw Problem(.badRequest, "Name the event to redeliver.") }
        do {
            try await developerServices.operations.redeliverWebhookEvent(actor: Self.staffActor(session), app: app, event: event)
        } catch DeveloperOperationError.notFound(let message) {
            return try await integrationsPage(session: session, request: request, notice: nil, error: message, publicKey: nil,
                                              status: .notFound)
        }
        var components = URLComponents()
        components.path = "/admin/integrations"
        components.queryItems = [URLQueryItem(name: "app", value: app), URLQueryItem(name: "done", value: "redelivered")]
        return WebPage.seeOther(components.string ?? "/admin/integrations")
    }

    /// A new install verification key for the marketplace (operators); its public key is shown to
    /// register in App Store Connect. The old key stays published until its tokens have expired.
    @Sendable func rotateKey(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let record = try await services.rotateInstallVerificationKey(actor: Self.staffActor(session))
        return try await integrationsPage(session: session, request: request,
                                          notice: "New install verification key \(record.kid): it signs from now on. Register its public key in App Store Connect, then set the key id it gives with souk marketplace set --key-id.",
                                          error: nil, publicKey: record.publicKeyPEM)
    }
}
