import Foundation
import SoukCore

/// One Stripe event (`{"id": "evt_…", "object": "event", "type", "created", "livemode",
/// "data": {"object": …}}`), as a webhook delivers it once `StripeWebhook.verify` has checked its
/// signature. `type` keeps Stripe's string so that new event types are stored, not refused; `kind`
/// names the ones Souk acts on.
public struct StripeEvent: Sendable, Equatable {
    /// The event types Souk acts on.
    public enum Kind: String, Sendable, CaseIterable {
        case checkoutSessionCompleted = "checkout.session.completed"
        case invoicePaid = "invoice.paid"
        case invoicePaymentFailed = "invoice.payment_failed"
        case customerSubscriptionUpdated = "customer.subscription.updated"
        case customerSubscriptionDeleted = "customer.subscription.deleted"
        case chargeRefunded = "charge.refunded"
    }

    /// `evt_…`: the same for every delivery of one event, so a redelivery is recognised as done.
    public var id: String
    public var type: String
    public var created: Date
    public var livemode: Bool
    /// `data.object` as compact JSON.
    public var object: [UInt8]

    public init(id: String, type: String, created: Date, livemode: Bool, object: [UInt8]) {
        self.id = id
        self.type = type
        self.created = created
        self.livemode = livemode
        self.object = object
    }

    /// The type, when it is one Souk acts on.
    public var kind: Kind? { Kind(rawValue: type) }

    /// Parses an event body (after its signature was checked).
    public static func parse(_ payload: [UInt8]) throws(StripeWebhookError) -> StripeEvent {
        let json: JSONValue
        do { json = try JSONValue.parse(payload) } catch { throw StripeWebhookError(.notJSON, detail: error.description) }
        do {
            let reader = try StripeObjectReader(json, path: "", expecting: "event")
            let id = try reader.requiredString("id")
            let type = try reader.requiredString("type")
            guard let created = try reader.date("created") else { throw reader.fail("created", "is missing") }
            guard let object = reader.at("data")?.at("object"), object.value.isObject else {
                throw JSONPathError(path: "data.object", message: "is missing")
            }
            // Stripe always says which mode an event is from: `true` or `false`, never `null` (which the
            // reader would take for absent). An event without it (a hand-made test event) is not live.
            if reader.value["livemode"] == .null { throw reader.fail("livemode", "expected true or false") }
            return StripeEvent(id: id, type: type, created: created, livemode: try reader.bool("livemode") ?? false,
                               object: Array(object.value.compactText().utf8))
        } catch {
            throw StripeWebhookError(.notAnEvent, detail: "\(error)")
        }
    }

    /// `data.object` of a `checkout.session.*` event.
    public func checkoutSession() throws -> StripeCheckoutSession {
        try StripeCheckoutSession(json: try JSONValue.parse(object), path: "data.object")
    }

    /// `data.object` of an `invoice.*` event.
    public func invoice() throws -> StripeInvoice {
        try StripeInvoice(json: try JSONValue.parse(object), path: "data.object")
    }

    /// `data.object` of a `customer.subscription.*` event.
    public func subscription() throws -> StripeSubscription {
        try StripeSubscription(json: try JSONValue.parse(object), path: "data.object")
    }

    /// `data.object` of a `charge.*` event.
    public func charge() throws -> StripeCharge {
        try StripeCharge(json: try JSONValue.parse(object), path: "data.object")
    }
}
