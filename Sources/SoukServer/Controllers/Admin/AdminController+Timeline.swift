import Foundation
import SoukCore
import SoukStore

/// A person's timeline on their console page: what happened to the account, newest first — the
/// account made, devices signed in, licenses issued and revoked, in-app purchases and their
/// lifecycle events, marketplace orders paid and refunded, promotional grants, webhooks sent about
/// them, and the console's and CLI's changes to them (the audit log).
extension AdminController {
    static var timelineLength: Int { 100 }

    struct TimelineEntry {
        var at: Date
        var kind: String
        var text: String
    }

    func timeline(account: AccountRecord) async throws -> [PersonValues.TimelineLine] {
        let id = account.id
        let limit = Self.timelineLength
        var entries: [TimelineEntry] = []
        if let created = account.createdAt { entries.append(TimelineEntry(at: created, kind: "account", text: "Account created")) }
        for device in try await services.tokens.devices(accountID: id) {
            entries.append(TimelineEntry(at: device.signedInAt, kind: "sign-in", text: "Signed in on device \(device.clientId)"))
        }
        let licenses = try await services.licenses.list(accountID: id, limit: limit)
        let orders = try await services.orders.orders(account: id)
        // Every app named below, read in one query.
        let names = try await services.catalog.appNames(Set(licenses.map(\.appleItemId) + orders.map(\.appleItemId)))
        func appName(_ item: UInt64) -> String { names[item] ?? "app \(item)" }
        for license in licenses {
            entries.append(TimelineEntry(at: license.issuedAt, kind: "license",
                                         text: "License \(license.licenseId) for \(appName(license.appleItemId)) on device \(license.deviceId)"))
            if let revoked = license.revokedAt {
                entries.append(TimelineEntry(at: revoked, kind: "license", text: "License \(license.licenseId) revoked"
                                             + (license.revokedReason.map { ": \($0)" } ?? "")))
            }
        }
        for event in try await services.commerceEvents.recent(account: id, limit: limit) {
            let what = [event.productId, event.entitlementId.map { "entitlement \($0)" }].compactMap { $0 }.joined(separator: ", ")
            entries.append(TimelineEntry(at: event.occurredAt, kind: "purchase",
                                         text: "\(event.type.rawValue.replacingOccurrences(of: "_", with: " ")) in \(event.app)"
                                             + (what.isEmpty ? "" : ": \(what)") + " (\(event.store ?? event.source.rawValue), \(event.environment.rawValue))"))
        }
        for order in orders {
            let price = Price(currency: order.price.currency, amount: order.amountPaid ?? order.price.amount).formatted
            if let paid = order.paidAt {
                entries.append(TimelineEntry(at: paid, kind: "order", text: "Bought \(appName(order.appleItemId)) for \(price) (\(order.processor))"))
            }
            if let refunded = order.refundedAt {
                entries.append(TimelineEntry(at: refunded, kind: "order", text: "Refund of \(appName(order.appleItemId))"
                                             + (order.amountRefunded.map { ": \(Price(currency: order.price.currency, amount: $0).formatted)" } ?? "")))
            }
        }
        for delivery in try await services.webhooks.deliveries(account: id, limit: limit) {
            entries.append(TimelineEntry(at: delivery.deliveredAt ?? delivery.createdAt, kind: "webhook",
                                         text: "Webhook \(delivery.eventType) to \(delivery.url): \(delivery.status.rawValue)"
                                             + (delivery.lastStatus.map { " (\($0))" } ?? "")))
        }
        for entry in try await audit.list(target: "account:\(id.uuidString.lowercased())", limit: limit) {
            entries.append(TimelineEntry(at: entry.at, kind: "change", text: "\(entry.action) by \(entry.actor)"))
        }
        let format = WebPage.format
        return entries.sorted { $0.at > $1.at }.prefix(limit).map { PersonValues.TimelineLine(at: format($0.at), kind: $0.kind, text: $0.text) }
    }
}
