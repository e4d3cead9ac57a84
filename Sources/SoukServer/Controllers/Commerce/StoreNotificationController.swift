import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// The stores' push endpoints. They only authenticate, deduplicate and store: a store retries any
/// non-2xx answer, so the answer must come at once and mean "kept", and the effect is left to
/// `StoreNotificationWorker`, which orders an app's notifications by the date the store signed them.
///
/// - `POST /commerce/<app>/apple/notifications` — App Store Server Notifications V2,
///   `{"signedPayload": "<JWS>"}`. Verified like any signed data for the app's bundle id (the
///   `stores.apple.bundleId` setting, else the app id) and, in production, its `appAppleId` (a
///   production notification is refused while `appAppleId` is not configured, since nothing else
///   proves it is this app's). Answers `200 {}` once stored (also for a copy under a seen
///   `notificationUUID`), `400` unreadable body, `401` signature or certificate chain not Apple's,
///   `403` another app or environment, `404` unknown app, `503` when the database cannot keep it.
/// - `POST /commerce/<app>/google/rtdn?token=<shared token>` — a Pub/Sub push of a Real-time
///   developer notification. The `token` must equal the app's `stores.googlePlay.rtdnToken`
///   (compared in constant time) and, when `pushAudience` is configured, the push's
///   `Authorization: Bearer` OIDC token must verify for that audience; otherwise `401`. `400` for
///   an unreadable envelope or another package, `200` once stored (also for a seen `messageId`).
struct StoreNotificationController<Context: RequestContext> {
    /// Checks a Pub/Sub push's OIDC token (the `Authorization` header's bearer) for `audience` and,
    /// when given, the service account `email`. True only for a valid token.
    typealias PushTokenCheck = @Sendable (_ bearer: String?, _ audience: String, _ email: String?) async -> Bool

    let catalogs: CommerceCatalogCache
    let settings: StoreSettingsProvider
    let apple: AppleSignedDataVerifier?
    let notifications: StoreNotificationStore
    let pushToken: PushTokenCheck?
    /// Wakes the worker after a new row (it also polls).
    let ring: @Sendable () -> Void
    /// Amazon's and Roku's endpoints, which read the transaction again before answering.
    var push: StorePushController<Context>? = nil
    /// Apple's and Pub/Sub's bodies are a few kilobytes; this leaves ample room.
    static var maxBody: Int { 512 * 1024 }
    /// Google's push carries an OIDC token (`Authorization: Bearer`) and the push URL's own `token`.
    static var pushChallenge: String { #"Bearer realm="google-rtdn""# }

    func addRoutes(to router: Router<Context>) {
        router.post("commerce/:app/apple/notifications") { request, context in try await apple(request, context) }
        router.post("commerce/:app/google/rtdn") { request, context in try await google(request, context) }
        push?.addRoutes(to: router)
    }

    func apple(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await knownApp(context)
        let body = String(buffer: try await request.collectBody(upTo: Self.maxBody))
        guard let envelope = try? JSONDecoder().decode(AppleEnvelope.self, from: Data(body.utf8)), !envelope.signedPayload.isEmpty else {
            throw Problem(.badRequest, "The body is not an App Store Server Notification V2 ({\"signedPayload\": \"…\"}).")
        }
        guard let apple else {
            throw Problem(.serviceUnavailable, "Apple signed data cannot be verified on this server.")
        }
        let settings = try await settings(app)?.apple
        let result = await apple.verifyNotification(envelope.signedPayload, bundleId: settings?.bundleId ?? app,
                                                    appAppleId: settings?.appAppleId, environments: [.production, .sandbox])
        let payload: AppleNotificationPayload
        switch result {
        case .valid(let valid):
            payload = valid
        case .invalid(let failure):
            context.logger.warning("Apple notification refused", metadata: ["app": "\(app)", "reason": "\(failure.reason.rawValue)"])
            switch failure.reason {
            case .wrongApp, .wrongEnvironment:
                throw Problem(.forbidden, "The notification is not for app \(app) as configured (\(failure.reason.rawValue)); "
                              + "check stores.apple.bundleId and appAppleId.")
            default:
                throw Problem(.unauthorized, "The notification's signature is not Apple's (\(failure.reason.rawValue)).",
                              challenge: #"JWS realm="app-store-server-notifications""#)
            }
        }
        guard let uuid = payload.notificationUUID, !uuid.isEmpty, let type = payload.rawNotificationType, let signedDate = payload.signedDate else {
            throw Problem(.badRequest, "The notification has no notificationUUID, notificationType or signedDate.")
        }
        let environment = payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment
        let receipt = try await notifications.receive(ReceivedStoreNotification(
            app: app, store: CommerceStore.appleStore.rawValue, notificationId: uuid, type: type, subtype: payload.rawSubtype,
            environment: environment, signedDate: signedDate, payload: body))
        context.logger.info("Apple notification received", metadata: [
            "app": "\(app)", "notification": "\(uuid)", "type": "\(type)", "subtype": "\(payload.rawSubtype ?? "-")",
            "new": "\(receipt != .duplicate)"])
        if receipt != .duplicate { ring() }
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }

    func google(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await knownApp(context)
        let google = try await settings(app)?.googlePlay
        guard let expected = try? google?.rtdnToken?.resolve() else {
            context.logger.error("Google RTDN push refused: stores.googlePlay.rtdnToken is not configured or cannot be read", metadata: ["app": "\(app)"])
            throw Problem(.unauthorized, "Real-time developer notifications are not configured for app \(app).", challenge: Self.pushChallenge)
        }
        let given = request.uri.queryParameters["token"].map(String.init) ?? ""
        guard Self.constantTimeEqual(given, expected) else {
            context.logger.warning("Google RTDN push refused: wrong or missing token", metadata: ["app": "\(app)"])
            throw Problem(.unauthorized, "The push URL's token is missing or wrong.", challenge: Self.pushChallenge)
        }
        if let audience = google?.pushAudience {
            let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            guard let pushToken, await pushToken(bearer, audience, google?.pushServiceAccountEmail) else {
                context.logger.warning("Google RTDN push refused: the push JWT did not verify", metadata: ["app": "\(app)"])
                throw Problem(.unauthorized, "The push's Authorization token is missing or not valid for the configured audience.", challenge: Self.pushChallenge)
            }
        }
        let body = String(buffer: try await request.collectBody(upTo: Self.maxBody))
        let push: PubSubPush
        do {
            push = try PubSubPush.parse(body)
        } catch {
            throw Problem(.badRequest, error.description)
        }
        let package = google?.packageName ?? app
        guard push.packageName == package else {
            throw Problem(.badRequest, "The notification is for package \(push.packageName), not \(package).")
        }
        let receipt = try await notifications.receive(ReceivedStoreNotification(
            app: app, store: CommerceStore.googlePlay.rawValue, notificationId: push.messageId, type: push.type, subtype: push.subtype,
            environment: nil, signedDate: push.eventTime, payload: body))
        context.logger.info("Google RTDN received", metadata: [
            "app": "\(app)", "message": "\(push.messageId)", "type": "\(push.type)", "new": "\(receipt != .duplicate)"])
        if receipt != .duplicate { ring() }
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: "{}")))
    }

    func knownApp(_ context: Context) async throws -> String {
        let app = try context.parameters.require("app")
        guard CatalogFile.isValidAppId(app), try await catalogs.state(app: app) != nil else {
            throw Problem(.notFound, "No product catalog for app \(app).")
        }
        return app
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0 && !b.isEmpty
    }

    struct AppleEnvelope: Decodable {
        var signedPayload: String
    }
}

/// What the route needs of a Pub/Sub push envelope (`{"message": {"data": base64, "messageId",
/// "publishTime"}, "subscription"}`) carrying a `DeveloperNotification`: the deduplication id, the
/// package, the kind and the event time (`eventTimeMillis`, else `publishTime`) that orders it.
/// The worker reads the full notification from the stored body.
struct PubSubPush: Equatable {
    var messageId: String
    var packageName: String
    /// subscriptionNotification, oneTimeProductNotification, voidedPurchaseNotification, testNotification, or unknown.
    var type: String
    /// The inner `notificationType` (a number) when there is one.
    var subtype: String?
    var eventTime: Date

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ body: String) throws(ParseError) -> PubSubPush {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let message = object["message"] as? [String: Any] else {
            throw ParseError(description: "The body is not a Pub/Sub push envelope ({\"message\": {…}, \"subscription\": …}).")
        }
        guard let messageId = (message["messageId"] ?? message["message_id"]) as? String, !messageId.isEmpty else {
            throw ParseError(description: "The Pub/Sub message has no messageId.")
        }
        guard let encoded = message["data"] as? String, let data = Data(base64Encoded: encoded),
              let notification = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ParseError(description: "The Pub/Sub message's data is not a base64 JSON DeveloperNotification.")
        }
        guard let packageName = notification["packageName"] as? String, !packageName.isEmpty else {
            throw ParseError(description: "The DeveloperNotification has no packageName.")
        }
        let kinds = ["subscriptionNotification", "oneTimeProductNotification", "voidedPurchaseNotification", "testNotification"]
        let type = kinds.first { notification[$0] != nil } ?? "unknown"
        let subtype = ((notification[type] as? [String: Any])?["notificationType"]).map { "\($0)" }
        let millis = (notification["eventTimeMillis"] as? String).flatMap(Int64.init) ?? (notification["eventTimeMillis"] as? Int64)
        var eventTime = millis.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
        if eventTime == nil, let published = message["publishTime"] as? String {
            eventTime = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(published))
                ?? (try? Date.ISO8601FormatStyle().parse(published))
        }
        guard let eventTime else {
            throw ParseError(description: "The notification has neither eventTimeMillis nor publishTime.")
        }
        return PubSubPush(messageId: messageId, packageName: packageName, type: type, subtype: subtype, eventTime: eventTime)
    }
}
