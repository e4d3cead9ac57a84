import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `POST /webhooks/app-store-connect` (docs/marketplacekit.md): checks `x-apple-signature`, records
/// the event once in the durable queue and answers at once; the worker does the slow part
/// (downloading a package).
///
/// 202: a new event, queued. 200: an event id seen before (nothing happens again). 401: a missing
/// or wrong signature (nothing recorded). 400: signed but not an event. 404: no secret configured
/// (a signed request; never a 5xx, as nothing is down: Apple retries until the operator sets it).
struct AppStoreConnectWebhookController<Context: RequestContext> {
    let secret: String?
    let store: AppStoreConnectEventStore
    let worker: AppStoreConnectEventWorker?

    static var maxBody: Int { 1 << 20 }
    static var path: String { "webhooks/app-store-connect" }

    func addRoutes(to router: Router<Context>) {
        router.post(RouterPath(stringLiteral: Self.path)) { request, context in try await receive(request, context) }
    }

    static var challenge: String { #"HMAC-SHA256 realm="app-store-connect", header="x-apple-signature""# }

    func receive(_ request: Request, _ context: Context) async throws -> Response {
        // Unsigned is refused the same way whether or not the endpoint is configured.
        guard let signature = request.headers[HTTPField.Name("x-apple-signature")!], !signature.isEmpty else {
            throw Problem(.unauthorized, "The x-apple-signature header is missing.", challenge: Self.challenge)
        }
        guard let secret else {
            context.logger.error("App Store Connect webhook called but SOUK_ASC_WEBHOOK_SECRET is not set")
            // Not an outage: nothing here can take the event until the operator sets the secret. Apple retries.
            throw Problem(.notFound, "The App Store Connect webhook is not configured on this server.")
        }
        let body = try await request.collectBody(upTo: Self.maxBody)
        let bytes = Array(buffer: body)
        guard WebhookSignature.isValid(request.headers[HTTPField.Name("x-apple-signature")!], body: bytes, secret: secret) else {
            context.logger.warning("App Store Connect webhook refused: bad signature")
            throw Problem(.unauthorized, "The x-apple-signature header does not match the body.", challenge: Self.challenge)
        }
        let event: AppStoreConnectEvent
        do {
            event = try AppStoreConnectEvent.parse(bytes)
        } catch {
            throw Problem(.badRequest, error.description)
        }
        let isNew = try await store.enqueue(eventId: event.id, type: event.type, payload: String(decoding: bytes, as: UTF8.self))
        context.logger.info("App Store Connect event received", metadata: ["event": "\(event.id)", "type": "\(event.type)", "new": "\(isNew)"])
        if isNew { worker?.ring() }
        return .json(["status": isNew ? "accepted" : "duplicate", "id": event.id],
                     status: isNew ? .accepted : .ok, cacheControl: "no-store")
    }
}
