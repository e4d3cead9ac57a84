import Foundation

/// Derives what a person may use from their granted purchases (docs/commerce.md, "Entitlements").
///
/// - Only purchases of the asked environments count; sandbox and production never mix.
/// - A purchase gives access from its purchase date (`clockSkewAllowance` early) until it ends — the store's expiry (auto-renewable), the chained end
///   of a non-renewing subscription (`nonRenewingEnds`), never (non-consumable) — or until it was
///   revoked or refunded, whichever is first. Consumables never give access (they are balances).
/// - A purchase grants its product and the product's entitlements (on sale or retired). An
///   auto-renewable in its grace period keeps access until `graceExpiresDate`.
/// - A promotional grant (type non-consumable, `grantedEntitlement` set) opens its entitlement
///   until its `expiresDate`, like a purchase of a product that grants only that entitlement.
/// - A product on sale is also entitled when active purchases grant every entitlement it grants
///   (a non-empty set): the yearly plan opens what the monthly opens. A retired product counts
///   only when it was bought itself.
public enum EntitlementEngine {
    /// The environments whose purchases an account sees: a sandbox account only Sandbox; a
    /// production account Production, and Sandbox too when the app allows it (App Review).
    public static func environments(accountIsSandbox: Bool, allowSandbox: Bool) -> Set<CommerceEnvironment> {
        if accountIsSandbox { return [.sandbox] }
        return allowSandbox ? [.production, .sandbox] : [.production]
    }

    public static func evaluate(_ purchases: [PurchaseRecord], catalog: CommerceCatalogState?, environments: Set<CommerceEnvironment>,
                                at now: Date) -> EntitlementSnapshot {
        let counted = purchases.filter { environments.contains($0.environment) && $0.type != .consumable }
        let chainedEnds = counted.contains { $0.type == .nonRenewing } ? nonRenewingEnds(counted, catalog: catalog) : [:]
        var snapshot = EntitlementSnapshot()
        for purchase in counted {
            guard let access = access(purchase, chainedEnds: chainedEnds, at: now) else { continue }
            if let entitlement = purchase.grantedEntitlement {
                // A promotional grant opens its entitlement, and through it the products it covers.
                keep(access, for: entitlement, in: &snapshot.entitlements)
                continue
            }
            snapshot.activePurchases.append(access)
            keep(access, for: purchase.productId, in: &snapshot.products)
            for entitlement in catalog?.product(purchase.productId)?.entitlements ?? [] {
                keep(access, for: entitlement, in: &snapshot.entitlements)
            }
        }
        snapshot.activePurchases.sort { a, b in
            if a.startedAt != b.startedAt { return a.startedAt < b.startedAt }
            if a.productId != b.productId { return a.productId < b.productId }
            return a.paymentId.isOrdered(before: b.paymentId)
        }
        guard let catalog, !snapshot.entitlements.isEmpty else { return snapshot }
        for product in catalog.catalog.products where !product.entitlements.isEmpty && product.type != .consumable {
            var limiting: ProductAccess?
            for entitlement in product.entitlements {
                guard let granted = snapshot.entitlements[entitlement] else {
                    limiting = nil
                    break
                }
                // The product is open as long as its first-ending entitlement is.
                if limiting == nil || limiting!.outranks(granted) { limiting = granted }
            }
            if let limiting { keep(limiting, for: product.id, in: &snapshot.products) }
        }
        return snapshot
    }

    /// The first instant after `now` at which `evaluate` may answer differently for the same
    /// purchases, catalog and environments (a purchase starts, ends or is revoked); nil when none
    /// is ahead. Between `now` and that instant the snapshot stays as it is, so it can be kept.
    public static func nextChange(_ purchases: [PurchaseRecord], catalog: CommerceCatalogState?, environments: Set<CommerceEnvironment>,
                                  after now: Date) -> Date? {
        let counted = purchases.filter { environments.contains($0.environment) && $0.type != .consumable }
        let chainedEnds = counted.contains { $0.type == .nonRenewing } ? nonRenewingEnds(counted, catalog: catalog) : [:]
        var next: Date?
        func consider(_ instant: Date?) {
            guard let instant, instant > now else { return }
            if let current = next, current <= instant { return }
            next = instant
        }
        for purchase in counted {
            consider(purchase.purchaseDate.addingTimeInterval(-clockSkewAllowance))
            consider(purchase.revokedAt)
            if purchase.grantedEntitlement != nil {
                consider(purchase.expiresDate)
                continue
            }
            switch purchase.type {
            case .autoRenewable: consider(Self.accessEnd(purchase))
            case .nonRenewing: consider(chainedEnds[purchase.paymentId])
            case .consumable, .nonConsumable: break
            }
        }
        return next
    }

    /// Non-renewing: each purchase runs from max(previous end, purchase date) for the product's duration (chained per product, per environment).
    ///
    /// Purchases are chained in purchase-date order (then payment id). A revoked purchase ends
    /// the chain's time at its revocation, so a refunded pass does not push later ones out. A
    /// purchase whose product (or duration) the catalog does not know keeps the store's expiry
    /// if it has one, and is left out otherwise. `quantity` passes run back to back.
    public static func nonRenewingEnds(_ purchases: [PurchaseRecord], catalog: CommerceCatalogState?) -> [UUID: Date] {
        var chains: [ChainKey: [PurchaseRecord]] = [:]
        for purchase in purchases where purchase.type == .nonRenewing {
            chains[ChainKey(productId: purchase.productId, environment: purchase.environment), default: []].append(purchase)
        }
        var ends: [UUID: Date] = [:]
        for (key, chain) in chains {
            let duration = catalog?.product(key.productId)?.duration
            var previousEnd: Date?
            let ordered = chain.sorted { a, b in
                a.purchaseDate != b.purchaseDate ? a.purchaseDate < b.purchaseDate : a.paymentId.isOrdered(before: b.paymentId)
            }
            for purchase in ordered {
                guard let duration else {
                    if let expires = purchase.expiresDate { ends[purchase.paymentId] = expires }
                    continue
                }
                var end = max(previousEnd ?? purchase.purchaseDate, purchase.purchaseDate)
                for _ in 0..<max(1, purchase.quantity) { end = duration.added(to: end) }
                ends[purchase.paymentId] = end
                previousEnd = purchase.revokedAt.map { min($0, end) } ?? end
            }
        }
        return ends
    }

    struct ChainKey: Hashable {
        var productId: String
        var environment: CommerceEnvironment
    }

    /// How far a store's purchase date may be ahead of Souk's clock and still count: a purchase
    /// is reported right after it was made, and the two clocks are never exactly alike.
    public static let clockSkewAllowance: TimeInterval = 300

    /// The access one purchase gives at `now`, or nil when it has not started, has ended or was revoked.
    static func access(_ purchase: PurchaseRecord, chainedEnds: [UUID: Date], at now: Date) -> ProductAccess? {
        guard purchase.purchaseDate.timeIntervalSince(now) <= clockSkewAllowance else { return nil }
        var end: Date?
        switch purchase.type {
        case .consumable: return nil
        case .nonConsumable: end = purchase.grantedEntitlement == nil ? nil : purchase.expiresDate
        case .autoRenewable: end = accessEnd(purchase)
        case .nonRenewing:
            guard let chained = chainedEnds[purchase.paymentId] else { return nil }
            end = chained
        }
        if let revokedAt = purchase.revokedAt {
            guard now < revokedAt else { return nil }
            end = min(end ?? revokedAt, revokedAt)
        }
        if let end, end <= now { return nil }
        return ProductAccess(productId: purchase.productId, startedAt: purchase.purchaseDate, expiresAt: end,
                             paymentId: purchase.paymentId, environment: purchase.environment,
                             isGrant: purchase.grantedEntitlement != nil)
    }

    /// Where an auto-renewable's access ends: its expiry, or the end of its grace period when later.
    static func accessEnd(_ purchase: PurchaseRecord) -> Date? {
        guard let grace = purchase.graceExpiresDate else { return purchase.expiresDate }
        guard let expires = purchase.expiresDate else { return grace }
        return max(expires, grace)
    }

    static func keep(_ access: ProductAccess, for id: String, in map: inout [String: ProductAccess]) {
        if let current = map[id], !access.outranks(current) { return }
        map[id] = access
    }
}

extension UUID {
    /// Byte order (the order of `uuidString`, without formatting it): a stable tie-break.
    func isOrdered(before other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { a in withUnsafeBytes(of: other.uuid) { b in a.lexicographicallyPrecedes(b) } }
    }
}
