import Foundation
import SoukCore

/// An Invoice, as `invoice.paid` and `invoice.payment_failed` carry it: each renewal of a
/// subscription is one invoice.
///
/// Stripe moved the subscription reference in API version 2025-03-31 (basil) from `subscription` to
/// `parent.subscription_details.subscription`; the webhook endpoint's version decides which one an
/// event has, so both are read (the newer first).
public struct StripeInvoice: Sendable, Equatable {
    public var id: String
    public var subscription: String?
    public var customer: String?
    /// Minor units.
    public var amountPaid: Int
    public var amountDue: Int
    public var currency: String?
    /// `draft`, `open`, `paid`, `uncollectible`, `void`.
    public var status: String?
    /// The end of the period the first line pays for (`lines.data[0].period.end`): how long a paid
    /// renewal entitles.
    public var periodEnd: Date?
    /// `subscription_create`, `subscription_cycle`, `subscription_update`, `manual`…
    public var billingReason: String?
    /// The subscription's metadata as the invoice snapshots it (Souk's order references).
    public var subscriptionMetadata: [String: String]
    /// The PaymentIntent that paid it: `payments.data[].payment.payment_intent` since basil, the
    /// invoice's own `payment_intent` before. A refund's charge names only this since basil (a
    /// charge has no `invoice` any more), so it is how a refund finds the invoice.
    public var paymentIntent: String?

    public init(id: String, subscription: String? = nil, customer: String? = nil, amountPaid: Int = 0, amountDue: Int = 0,
                currency: String? = nil, status: String? = nil, periodEnd: Date? = nil, billingReason: String? = nil,
                subscriptionMetadata: [String: String] = [:], paymentIntent: String? = nil) {
        self.id = id
        self.subscription = subscription
        self.customer = customer
        self.amountPaid = amountPaid
        self.amountDue = amountDue
        self.currency = currency
        self.status = status
        self.periodEnd = periodEnd
        self.billingReason = billingReason
        self.subscriptionMetadata = subscriptionMetadata
        self.paymentIntent = paymentIntent
    }

    init(json: JSONValue, path: String) throws(JSONPathError) {
        let reader = try StripeObjectReader(json, path: path, expecting: "invoice")
        var paymentIntent = try reader.reference("payment_intent")
        if paymentIntent == nil, let payments = reader.at("payments")?.at("data"), case .array(let items) = payments.value {
            for (index, item) in items.enumerated() {
                let payment = StripeObjectReader(item, path: "\(payments.path)[\(index)]").at("payment")
                if let intent = try payment?.reference("payment_intent") {
                    paymentIntent = intent
                    break
                }
            }
        }
        let details = reader.at("parent")?.at("subscription_details")
        let legacyDetails = reader.at("subscription_details")
        var subscription = try details?.reference("subscription")
        if subscription == nil { subscription = try reader.reference("subscription") }
        var subscriptionMetadata = try details?.metadata() ?? [:]
        if details == nil { subscriptionMetadata = try legacyDetails?.metadata() ?? [:] }
        self.init(id: try reader.requiredString("id"),
                  subscription: subscription,
                  customer: try reader.reference("customer"),
                  amountPaid: try reader.int("amount_paid") ?? 0, amountDue: try reader.int("amount_due") ?? 0,
                  currency: try reader.string("currency"), status: try reader.string("status"),
                  periodEnd: try reader.firstListItem("lines")?.at("period")?.date("end"),
                  billingReason: try reader.string("billing_reason"),
                  subscriptionMetadata: subscriptionMetadata, paymentIntent: paymentIntent)
    }
}

/// A Subscription, as `customer.subscription.updated` / `.deleted` carry it.
///
/// `current_period_end` moved in API version 2025-03-31 (basil) from the subscription to its items;
/// both places are read (the subscription's first).
public struct StripeSubscription: Sendable, Equatable {
    public var id: String
    public var customer: String?
    /// `incomplete`, `incomplete_expired`, `trialing`, `active`, `past_due`, `canceled`, `unpaid`, `paused`.
    public var status: String
    public var currentPeriodEnd: Date?
    /// The person cancelled: the subscription runs to `currentPeriodEnd` and does not renew.
    public var cancelAtPeriodEnd: Bool
    /// Set from the checkout's `subscription_data[metadata]`: Souk's order references.
    public var metadata: [String: String]

    public init(id: String, customer: String? = nil, status: String, currentPeriodEnd: Date? = nil, cancelAtPeriodEnd: Bool = false,
                metadata: [String: String] = [:]) {
        self.id = id
        self.customer = customer
        self.status = status
        self.currentPeriodEnd = currentPeriodEnd
        self.cancelAtPeriodEnd = cancelAtPeriodEnd
        self.metadata = metadata
    }

    init(json: JSONValue, path: String) throws(JSONPathError) {
        let reader = try StripeObjectReader(json, path: path, expecting: "subscription")
        var currentPeriodEnd = try reader.date("current_period_end")
        if currentPeriodEnd == nil { currentPeriodEnd = try reader.firstListItem("items")?.date("current_period_end") }
        self.init(id: try reader.requiredString("id"), customer: try reader.reference("customer"),
                  status: try reader.requiredString("status"), currentPeriodEnd: currentPeriodEnd,
                  cancelAtPeriodEnd: try reader.bool("cancel_at_period_end") ?? false, metadata: try reader.metadata())
    }
}

/// A Charge, as `charge.refunded` carries it. `amountRefunded` is the total refunded so far (a
/// partial refund leaves `refunded` false); the order is found through `paymentIntent` (one-time
/// purchases) or `invoice` (subscriptions, where the API version still sends it).
public struct StripeCharge: Sendable, Equatable {
    public var id: String
    /// Minor units.
    public var amount: Int
    public var amountRefunded: Int
    public var currency: String?
    /// Whether the whole amount has been refunded.
    public var refunded: Bool
    public var paymentIntent: String?
    public var invoice: String?
    public var metadata: [String: String]

    public init(id: String, amount: Int, amountRefunded: Int, currency: String? = nil, refunded: Bool,
                paymentIntent: String? = nil, invoice: String? = nil, metadata: [String: String] = [:]) {
        self.id = id
        self.amount = amount
        self.amountRefunded = amountRefunded
        self.currency = currency
        self.refunded = refunded
        self.paymentIntent = paymentIntent
        self.invoice = invoice
        self.metadata = metadata
    }

    init(json: JSONValue, path: String) throws(JSONPathError) {
        let reader = try StripeObjectReader(json, path: path, expecting: "charge")
        self.init(id: try reader.requiredString("id"), amount: try reader.requiredInt("amount"),
                  amountRefunded: try reader.int("amount_refunded") ?? 0, currency: try reader.string("currency"),
                  refunded: try reader.bool("refunded") ?? false, paymentIntent: try reader.reference("payment_intent"),
                  invoice: try reader.reference("invoice"), metadata: try reader.metadata())
    }
}
