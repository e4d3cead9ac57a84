import Foundation

/// Whether a reported purchase may be recorded (docs/commerce.md, "Purchases"): checked once against
/// the app's catalog before the store is asked, and once against the store's verified answer.
public enum PurchaseIntakeRule {
    /// Before verification: the product exists in the app's catalog (on sale or retired) and the claimed SKU is its SKU in claim.store.
    public static func precheck(productId: String, claim: PurchaseClaim, catalog: CommerceCatalogState) -> Result<ProductDefinition, PurchaseRefusal> {
        guard claim.app == catalog.app else {
            return .failure(.wrongApp("The purchase is for \(claim.app), not \(catalog.app)."))
        }
        guard let product = catalog.product(productId) else {
            return .failure(.unknownProduct("\(productId) is not a product of \(catalog.app)."))
        }
        guard let sku = product.skus[claim.store] else {
            return .failure(.productMismatch("\(productId) is not sold in \(claim.store.rawValue)."))
        }
        guard sku == claim.storeProductId else {
            return .failure(.productMismatch("\(claim.storeProductId) is not the \(claim.store.rawValue) SKU of \(productId)."))
        }
        return .success(product)
    }

    /// After verification: verified.app == claim.app, verified.storeProductId == product's SKU, transaction id consistent with the claim,
    /// environment: sandbox account + Production → wrongEnvironment; production account + Sandbox → allowed only when allowSandbox.
    ///
    /// The transaction id is consistent when the claim names the verified transaction or its
    /// original transaction (a restore), or names none (`POST restore` carries only signed data).
    /// A type the store states must be the catalog's. Expired or revoked purchases are not refused
    /// here: they are recorded and grant nothing.
    public static func decide(verified: VerifiedPurchase, product: ProductDefinition, claim: PurchaseClaim, accountIsSandbox: Bool,
                              allowSandbox: Bool) -> Result<CommerceEnvironment, PurchaseRefusal> {
        guard verified.app == claim.app else {
            return .failure(.wrongApp("The store says this purchase belongs to \(verified.app), not \(claim.app)."))
        }
        guard verified.store == claim.store else {
            return .failure(.productMismatch("The purchase was verified by \(verified.store.rawValue), not \(claim.store.rawValue)."))
        }
        guard let sku = product.skus[verified.store], verified.storeProductId == sku else {
            return .failure(.productMismatch("The store says \(verified.storeProductId) was bought, not the SKU of \(product.id)."))
        }
        if !claim.transactionId.isEmpty, claim.transactionId != verified.transactionId, claim.transactionId != verified.originalTransactionId {
            return .failure(.transactionMismatch("The signed transaction is \(verified.transactionId), not \(claim.transactionId)."))
        }
        if let type = verified.type, type != product.type {
            return .failure(.productMismatch("The store says \(product.id) is \(type.rawValue), the catalog says \(product.type.rawValue)."))
        }
        switch (verified.environment, accountIsSandbox) {
        case (.production, true):
            return .failure(.wrongEnvironment("A sandbox account cannot present a Production purchase."))
        case (.sandbox, false) where !allowSandbox:
            return .failure(.wrongEnvironment("This app does not accept Sandbox purchases from production accounts (allowSandbox)."))
        default:
            return .success(verified.environment)
        }
    }
}

extension PurchaseRefusal {
    /// The claim names another transaction than the one the store signed.
    public static func transactionMismatch(_ detail: String) -> PurchaseRefusal { .init("transaction-mismatch", detail) }
}
