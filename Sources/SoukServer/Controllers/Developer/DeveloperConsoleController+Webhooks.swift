import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An in-app catalog's webhooks (`/developer/catalog/<app>/webhooks`): the endpoints its lifecycle
/// events go to (add with a URL and a signing secret, shown once when the console makes it; delete)
/// and the latest deliveries with their status, attempts, last answer and next retry. Everything
/// goes through `DeveloperOperations` (`webhooks:write`), as the developer API does.
extension DeveloperConsoleController {
    func addWebhookRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("catalog/:app/webhooks", use: webhooksPage)
        routes.members.post("catalog/:app/webhooks", use: addWebhook)
        routes.members.post("webhooks/:webhook/delete", use: deleteWebhook)
    }

    /// How many deliveries the page lists, newest first.
    static var webhookDeliveryRows: Int { 100 }

    @Sendable func webhooksPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let notice = request.uri.queryParameters["done"] == "deleted" ? "Webhook deleted: it gets no more deliveries." : nil
        return try await webhooksList(session: session, app: context.parameters.get("app") ?? "", notice: notice, error: nil,
                                      secret: nil, enteredURL: "", status: .ok)
    }

    func webhooksList(session: DeveloperSession, app: String, notice: String?, error: String?, secret: String?, enteredURL: String,
                      status: HTTPResponse.Status) async throws -> Response {
        let format = WebPage.format
        let operations = services.operations
        let endpoints = try await operations.webhooks(actor: session.actor, app: app)
        let deliveries = try await operations.webhookDeliveries(actor: session.actor, app: app, limit: Self.webhookDeliveryRows)
        let values = DeveloperWebhooksValues(
            app: app, catalogHref: Self.catalogPath(app), action: Self.catalogPath(app) + "/webhooks", url: enteredURL,
            endpoints: endpoints.map { endpoint in
                .init(id: endpoint.id.uuidString.lowercased(), url: endpoint.url, created: format(endpoint.createdAt))
            },
            deliveries: deliveries.map { delivery in
                .init(created: format(delivery.createdAt), event: delivery.eventId.uuidString.lowercased(), type: delivery.eventType,
                      url: delivery.url, status: delivery.status.rawValue, attempts: String(delivery.attempts),
                      last: delivery.lastStatus.map(String.init) ?? delivery.lastError ?? "",
                      next: delivery.deliveredAt.map { "delivered \(format($0))" }
                          ?? (delivery.status == .pending ? format(delivery.nextAttemptAt) : "none"))
            },
            notice: notice, error: error, secret: secret)
        return try await render(.developerWebhooks, session: session, title: "Webhooks · \(app)", page: values, status: status)
    }

    /// Adds an endpoint: the URL, and a signing secret (at least 16 characters); without one the
    /// console makes a random secret and shows it once.
    @Sendable func addWebhook(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        let app = context.parameters.get("app") ?? ""
        let url = (form["url"] ?? "").trimmingCharacters(in: .whitespaces)
        let entered = (form["secret"] ?? "").trimmingCharacters(in: .whitespaces)
        let secret = entered.isEmpty ? Self.newWebhookSecret() : entered
        do {
            let endpoint = try await services.operations.addWebhook(actor: session.actor, app: app, url: url, secret: secret)
            return try await webhooksList(session: session, app: app, notice: "Webhook to \(endpoint.url) added.", error: nil,
                                          secret: entered.isEmpty ? secret : nil, enteredURL: "", status: .ok)
        } catch DeveloperOperationError.invalid(_, let message) {
            return try await webhooksList(session: session, app: app, notice: nil, error: message, secret: nil, enteredURL: url,
                                          status: .badRequest)
        }
    }

    @Sendable func deleteWebhook(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await memberForm(request, context: context)
        guard let id = context.parameters.get("webhook").flatMap(UUID.init(uuidString:)) else {
            throw DeveloperOperationError.notFound("No webhook of yours has this id.")
        }
        let endpoint = try await services.operations.webhookEndpoint(actor: session.actor, id: id)
        try await services.operations.removeWebhook(actor: session.actor, id: id)
        return WebPage.seeOther(Self.catalogPath(endpoint.app) + "/webhooks?done=deleted")
    }

    /// 32 random bytes, hex: the HMAC key the receiver checks signatures with.
    static func newWebhookSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
