import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Look Up Order ID: from the order id on a customer's App Store receipt e-mail to the Souk
/// account and purchases it belongs to.
extension AppleOperations {
    /// One transaction of the order, with the purchase Souk holds for it (nil: never reported).
    public struct OrderTransaction: Sendable, Equatable {
        public var transactionId: String
        public var originalTransactionId: String?
        public var productId: String?
        public var purchaseDate: Date?
        public var environment: String?
        public var purchase: StoredPurchase?
    }

    /// What Apple and Souk know of an order id.
    public struct OrderFinding: Sendable, Equatable {
        public var orderId: String
        /// Apple knows the order id (`OrderLookupStatus` 0).
        public var valid: Bool
        public var transactions: [OrderTransaction]
        /// Transactions Apple returned that do not verify (left out).
        public var unverified: Int

        /// The accounts the order's purchases belong to.
        public var accounts: [UUID] {
            var seen: [UUID] = []
            for id in transactions.compactMap({ $0.purchase?.accountId }) where !seen.contains(id) { seen.append(id) }
            return seen
        }
    }

    /// Asks Apple about `orderId` (production, then sandbox when production does not know it),
    /// verifies each signed transaction and finds Souk's purchase of each.
    /// - Throws: `Refusal` for a bad order id or a missing key; `StoreFault` when Apple gave no answer.
    public func findOrder(app: String, orderId: String) async throws -> OrderFinding {
        let trimmed = orderId.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 64, trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw Refusal("an order id is letters and digits, as on the App Store receipt (e.g. MK5TTTVWJH)")
        }
        let (credentials, bundleId) = try await credentials(app: app)
        for environment in [CommerceEnvironment.production, .sandbox] {
            switch try await api.lookUpOrder(trimmed, environment: environment, credentials: credentials) {
            case .found(let lookup) where lookup.isValid:
                return try await finding(trimmed, lookup, app: app, bundleId: bundleId, environment: environment)
            case .invalid(let code, let message):
                throw Refusal("Apple refused the order id (errorCode \(code.map(String.init) ?? "none")): \(message)")
            case .found, .notFound:
                continue
            }
        }
        return OrderFinding(orderId: trimmed, valid: false, transactions: [], unverified: 0)
    }

    package func finding(_ orderId: String, _ lookup: AppleOrderLookup, app: String, bundleId: String,
                 environment: CommerceEnvironment) async throws -> OrderFinding {
        var transactions: [OrderTransaction] = []
        var unverified = 0
        for signed in lookup.signedTransactions {
            guard let verifier,
                  case .valid(let transaction) = await verifier.verifier.verifyTransaction(signed, bundleId: bundleId, environments: [environment]),
                  let id = transaction.transactionId else {
                unverified += 1
                continue
            }
            transactions.append(OrderTransaction(
                transactionId: id, originalTransactionId: transaction.originalTransactionId, productId: transaction.productId,
                purchaseDate: transaction.purchaseDate, environment: transaction.rawEnvironment,
                purchase: try await purchases.purchase(app: app, store: .appleStore, transactionId: id)))
        }
        return OrderFinding(orderId: orderId, valid: true, transactions: transactions, unverified: unverified)
    }
}
