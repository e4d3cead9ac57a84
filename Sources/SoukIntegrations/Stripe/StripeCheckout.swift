import Foundation
import SoukCore

/// One line of a Checkout Session, priced inline (`line_items[][price_data]`), so Souk's catalog stays
/// the one place prices live and no Price or Product objects are created in Stripe beforehand.
public struct StripeLineItem: Sendable, Equatable {
    public var name: String
    /// ISO 4217, lowercase as Stripe writes it (an uppercase code is lowercased when sent).
    public var currency: String
    /// Minor units (cents; yen for JPY).
    public var unitAmount: Int
    public var quantity: Int
    /// `day`, `week`, `month` or `year` for a subscription's price; nil for a one-time price.
    public var recurringInterval: String?
    /// Intervals between charges (3 with `month`: quarterly); nil: 1.
    public var recurringIntervalCount: Int?

    public init(name: String, currency: String, unitAmount: Int, quantity: Int = 1,
                recurringInterval: String? = nil, recurringIntervalCount: Int? = nil) {
        self.name = name
        self.currency = currency
        self.unitAmount = unitAmount
        self.quantity = quantity
        self.recurringInterval = recurringInterval
        self.recurringIntervalCount = recurringIntervalCount
    }
}

/// What `POST /v1/checkout/sessions` is asked for.
public struct StripeCheckoutRequest: Sendable, Equatable {
    /// `payment` for one-time purchases, `subscription` for plans (every line item then recurring).
    public enum Mode: String, Sendable {
        case payment, subscription
    }

    public var mode: Mode
    public var lineItems: [StripeLineItem]
    /// Where Stripe sends the person after paying; `{CHECKOUT_SESSION_ID}` is replaced by Stripe.
    public var successURL: String
    public var cancelURL: String
    /// Souk's order id, echoed back in the session and its webhooks.
    public var clientReferenceId: String?
    public var customerEmail: String?
    /// Set on the session and also on what the session creates (the subscription in `subscription`
    /// mode, the PaymentIntent in `payment` mode), so later `invoice.*`, `customer.subscription.*`
    /// and refund events carry Souk's references without another call to Stripe.
    public var metadata: [String: String]

    public init(mode: Mode, lineItems: [StripeLineItem], successURL: String, cancelURL: String,
                clientReferenceId: String? = nil, customerEmail: String? = nil, metadata: [String: String] = [:]) {
        self.mode = mode
        self.lineItems = lineItems
        self.successURL = successURL
        self.cancelURL = cancelURL
        self.clientReferenceId = clientReferenceId
        self.customerEmail = customerEmail
        self.metadata = metadata
    }

    /// The form parameters, in a fixed order (metadata sorted by key) so that a retry with the same
    /// idempotency key sends the same body.
    var formFields: [(String, String)] {
        var fields: [(String, String)] = [("mode", mode.rawValue)]
        for (index, item) in lineItems.enumerated() {
            let prefix = "line_items[\(index)]"
            fields.append(("\(prefix)[price_data][currency]", item.currency.lowercased()))
            fields.append(("\(prefix)[price_data][product_data][name]", item.name))
            fields.append(("\(prefix)[price_data][unit_amount]", String(item.unitAmount)))
            if let interval = item.recurringInterval {
                fields.append(("\(prefix)[price_data][recurring][interval]", interval))
                if let count = item.recurringIntervalCount {
                    fields.append(("\(prefix)[price_data][recurring][interval_count]", String(count)))
                }
            }
            fields.append(("\(prefix)[quantity]", String(item.quantity)))
        }
        fields.append(("success_url", successURL))
        fields.append(("cancel_url", cancelURL))
        if let clientReferenceId { fields.append(("client_reference_id", clientReferenceId)) }
        if let customerEmail { fields.append(("customer_email", customerEmail)) }
        let sorted = metadata.sorted { $0.key < $1.key }
        for (key, value) in sorted { fields.append(("metadata[\(key)]", value)) }
        // Stripe refuses `payment_intent_data` in subscription mode and `subscription_data` in payment mode.
        let copy = mode == .subscription ? "subscription_data" : "payment_intent_data"
        for (key, value) in sorted { fields.append(("\(copy)[metadata][\(key)]", value)) }
        return fields
    }
}

/// A Checkout Session as Stripe returns it (and as `checkout.session.*` events carry it).
public struct StripeCheckoutSession: Sendable, Equatable {
    public var id: String
    /// Where to send the person to pay; nil once the session is complete or expired.
    public var url: String?
    /// `open`, `complete` or `expired`.
    public var status: String?
    /// `paid`, `unpaid` or `no_payment_required`; only `paid` grants anything.
    public var paymentStatus: String?
    /// Minor units.
    public var amountTotal: Int?
    public var currency: String?
    public var clientReferenceId: String?
    public var metadata: [String: String]
    /// The subscription's id (`mode=subscription`, once complete).
    public var subscription: String?
    public var customer: String?
    public var mode: String?
    /// The PaymentIntent's id (`mode=payment`, once complete): what a later `charge.refunded` names.
    public var paymentIntent: String?

    public init(id: String, url: String? = nil, status: String? = nil, paymentStatus: String? = nil, amountTotal: Int? = nil,
                currency: String? = nil, clientReferenceId: String? = nil, metadata: [String: String] = [:],
                subscription: String? = nil, customer: String? = nil, mode: String? = nil, paymentIntent: String? = nil) {
        self.id = id
        self.url = url
        self.status = status
        self.paymentStatus = paymentStatus
        self.amountTotal = amountTotal
        self.currency = currency
        self.clientReferenceId = clientReferenceId
        self.metadata = metadata
        self.subscription = subscription
        self.customer = customer
        self.mode = mode
        self.paymentIntent = paymentIntent
    }

    /// Whether the session is complete and paid: the only state in which a checkout grants anything
    /// (a completed session with `payment_status` `unpaid` is waiting for a delayed payment method).
    public var isPaid: Bool { status == "complete" && paymentStatus == "paid" }

    init(json: JSONValue, path: String) throws(JSONPathError) {
        let reader = try StripeObjectReader(json, path: path, expecting: "checkout.session")
        self.init(id: try reader.requiredString("id"), url: try reader.string("url"), status: try reader.string("status"),
                  paymentStatus: try reader.string("payment_status"), amountTotal: try reader.int("amount_total"),
                  currency: try reader.string("currency"), clientReferenceId: try reader.string("client_reference_id"),
                  metadata: try reader.metadata(), subscription: try reader.reference("subscription"),
                  customer: try reader.reference("customer"), mode: try reader.string("mode"),
                  paymentIntent: try reader.reference("payment_intent"))
    }
}
