import Foundation
import Hummingbird
import SoukCore
import SoukIntegrations
import SoukStore

extension StorePushController {
    /// `POST /commerce/<app>/amazon/notifications`: an Amazon SNS message carrying a Real-Time Notification.
    func amazon(_ request: Request, _ context: Context) async throws -> Response {
        let app = try await knownApp(context)
        let body = String(buffer: try await request.collectBody(upTo: Self.maxBody))
        let message: AmazonSNSMessage
        do {
            message = try AmazonSNSMessage.parse(body)
        } catch {
            throw Problem(.badRequest, error.description)
        }
        guard let sns, let amazon else {
            throw Problem(.serviceUnavailable, "Amazon notifications cannot be verified on this server.", retryAfter: 60)
        }
        let refusal: AmazonSNSRefusal?
        do {
            refusal = try await sns.refusal(of: message)
        } catch {
            context.logger.warning("Amazon SNS signing certificate cannot be fetched", metadata: ["app": "\(app)", "error": "\(error)"])
            throw Problem(.serviceUnavailable, "Amazon SNS's signing certificate cannot be fetched now; SNS delivers again.", retryAfter: 30)
        }
        if let refusal {
            context.logger.warning("Amazon SNS message refused", metadata: ["app": "\(app)", "reason": "\(refusal.rawValue)",
                                                                            "message": "\(message.messageId)"])
            throw Problem(.forbidden, "The message is not signed by Amazon SNS (\(refusal.rawValue)).")
        }
        var received = ReceivedStoreNotification(app: app, store: CommerceStore.amazon.rawValue, notificationId: message.messageId,
                                                 type: message.type, signedDate: message.date ?? now(), payload: body)
        switch message.type {
        case "SubscriptionConfirmation":
            try await confirm(message, received, context)
        case "Notification":
            let notification: AmazonRealTimeNotification
            do {
                notification = try AmazonRealTimeNotification.parse(message.message)
            } catch {
                throw Problem(.badRequest, error.description)
            }
            received.type = notification.notificationType
            received.environment = notification.betaProductTransaction ? CommerceEnvironment.sandbox.rawValue : nil
            received.signedDate = notification.timestamp ?? received.signedDate
            if let row = try await pending(received) {
                try await settle(row, logger: context.logger) { try await amazon.handle(row) }
            }
        default:
            // UnsubscribeConfirmation: kept for the operator; Souk does not subscribe again on its own.
            if let row = try await pending(received) {
                try await notifications.complete(row.id, status: .ignored, summary: "unsubscribed from \(message.topicArn)")
            }
        }
        return Self.ok()
    }

    /// Confirms the subscription (fetching `SubscribeURL`), then keeps the confirmation as settled.
    func confirm(_ message: AmazonSNSMessage, _ received: ReceivedStoreNotification, _ context: Context) async throws {
        let confirmation: AmazonSNSVerifier.Confirmation
        do {
            confirmation = try await sns!.confirm(message)
        } catch {
            context.logger.warning("Amazon SNS subscription cannot be confirmed now", metadata: ["app": "\(received.app)", "error": "\(error)"])
            throw Problem(.serviceUnavailable, "Amazon SNS did not answer the subscription confirmation; SNS delivers again.", retryAfter: 30)
        }
        let status: StoreNotificationStatus
        let summary: String
        switch confirmation {
        case .untrustedURL:
            context.logger.warning("Amazon SNS SubscribeURL refused", metadata: ["app": "\(received.app)", "message": "\(message.messageId)"])
            throw Problem(.forbidden, "The SubscribeURL is not an Amazon SNS URL (amazonSnsCertUrlPattern).")
        case .confirmed:
            status = .processed
            summary = "subscription to \(message.topicArn) confirmed"
        case .refused(let code):
            status = .ignored
            summary = "SNS answered \(code) to the subscription confirmation of \(message.topicArn)"
        }
        if let row = try await pending(received) {
            try await notifications.complete(row.id, status: status, summary: summary)
        }
        context.logger.notice("Amazon SNS subscription confirmation", metadata: ["app": "\(received.app)", "summary": "\(summary)"])
    }
}
