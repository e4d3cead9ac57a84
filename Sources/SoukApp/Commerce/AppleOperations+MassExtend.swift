import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Apple's Mass Extend Subscription Renewal Date: checked first (`planMassExtension`, which writes
/// nothing: the console shows the plan to confirm), then sent (`extendAll`), by `souk subscriptions
/// extend --all-active` and the console's form alike. The extension worker follows it
/// (`followMassExtension`).
extension AppleOperations {
    /// A mass extension as asked, checked as Apple would take it and against the app's catalog and
    /// key, before anything is recorded or sent (the console shows it to confirm; `extendAll` sends it).
    public struct MassExtensionPlan: Sendable, Equatable {
        public var app: String
        /// The catalog's product id.
        public var product: String
        /// Its App Store product id (what Apple is asked about).
        public var appleProductId: String
        public var days: Int
        public var reason: Int
        /// ISO 3166-1 alpha-3 codes; nil: every storefront.
        public var storefronts: [String]?
        public var environment: CommerceEnvironment
    }

    /// Checks a mass extension of `product` (a Souk product id or its App Store product id): days
    /// and reason within Apple's limits, storefronts as ISO 3166-1 alpha-3 codes, the product an
    /// auto-renewable subscription of the app's catalog, the app's In-App Purchase key configured.
    /// `AccountScope` decides first whether `actor` may extend every subscriber of the app at once.
    /// - Throws: `PeopleOperationError.refused` for an actor below the role; `Refusal` saying what
    ///   is wrong; nothing is written (but a staff member's refusal, audited).
    public func planMassExtension(app: String, product: String, days: Int, reason: Int, storefronts: [String]?,
                                  environment: CommerceEnvironment, actor: SoukActor) async throws -> MassExtensionPlan {
        try await AccountScope(audit: audit).check(.extendSubscriptions, actor: actor, app: app)
        _ = try Self.check(days: days, reason: reason)
        let storefronts = storefronts.flatMap { $0.isEmpty ? nil : $0 }
        for code in storefronts ?? [] where !(code.count == 3 && code.allSatisfy { $0.isASCII && $0.isUppercase }) {
            throw Refusal("storefront \(code) is not an ISO 3166-1 alpha-3 code (e.g. USA)")
        }
        let catalog = try await catalogs.state(app: app)
        let definition = catalog?.product(product) ?? catalog?.product(store: .appleStore, sku: product)
        guard let definition, definition.type == .autoRenewable else {
            throw Refusal("\(product) is no auto-renewable subscription of \(app)'s catalog")
        }
        _ = try await credentials(app: app)
        return MassExtensionPlan(app: app, product: definition.id, appleProductId: definition.skus[.appleStore] ?? definition.id, days: days,
                                 reason: reason, storefronts: storefronts, environment: environment)
    }

    /// Asks Apple to extend every eligible active subscriber of `product` (a Souk product id or its
    /// App Store product id) by `days`; the worker follows the request until Apple completes it,
    /// then moves the entitlements of the app's purchases it covered.
    public func extendAll(app: String, product: String, days: Int, reason: Int, storefronts: [String]?, environment: CommerceEnvironment,
                          actor: SoukActor) async throws -> AppleRenewalExtension {
        try await extendAll(try await planMassExtension(app: app, product: product, days: days, reason: reason, storefronts: storefronts,
                                                        environment: environment, actor: actor), actor: actor)
    }

    /// Sends a checked mass extension to Apple: recorded first (pending), then as Apple answered,
    /// and audited (`subscriptions.extend_mass`) as `actor`, whom `AccountScope` allows it.
    /// - Throws: `Refusal` when the key went meanwhile; `StoreFault` when Apple gave no answer (the
    ///   row says so; nothing moved).
    public func extendAll(_ plan: MassExtensionPlan, actor: SoukActor) async throws -> AppleRenewalExtension {
        try await AccountScope(audit: audit).check(.extendSubscriptions, actor: actor, app: plan.app)
        let app = plan.app, sku = plan.appleProductId, days = plan.days, reason = plan.reason
        let storefronts = plan.storefronts, environment = plan.environment
        let code = try Self.check(days: days, reason: reason)
        let (credentials, _) = try await credentials(app: app)
        let request = AppleMassExtendRenewalDateRequest(requestIdentifier: Self.requestIdentifier(), extendByDays: days, extendReasonCode: code,
                                                        productId: sku, storefrontCountryCodes: storefronts)
        var row = AppleRenewalExtension(app: app, requestIdentifier: request.requestIdentifier, kind: .mass, environment: environment, productId: sku,
                                        originalTransactionId: nil, extendByDays: days, reasonCode: reason, storefronts: storefronts,
                                        requestedBy: actor.auditName, requestedAt: now())
        try await extensions.record(row)
        let answer: AppleAPIAnswer<String>
        do {
            answer = try await api.massExtendRenewalDate(request, environment: environment, credentials: credentials)
        } catch {
            try await extensions.update(row.id, status: .unanswered, nextCheckAt: nil, detail: "Apple gave no answer: \(error)")
            throw error
        }
        switch answer {
        case .found:
            row.nextCheckAt = now()
            row.detail = "waiting for Apple to complete it"
        case .notFound:
            row.status = .refused
            row.detail = "Apple knows no such product"
        case .invalid(let errorCode, let message):
            row.status = .refused
            row.detail = "errorCode \(errorCode.map(String.init) ?? "none"): \(message)"
        }
        try await extensions.update(row.id, status: row.status, nextCheckAt: row.nextCheckAt, detail: row.detail)
        try await audit.record(actor: actor, action: .subscriptionsExtendMass, target: "app:\(app)",
                               after: ["product": sku, "days": String(days), "reason": String(reason), "request": request.requestIdentifier,
                                       "storefronts": storefronts?.joined(separator: ",") ?? "all", "status": row.status.rawValue,
                                       "environment": environment.rawValue])
        return row
    }
}
