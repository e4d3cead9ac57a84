import Foundation
import SoukCore
import SoukIntegrations

/// `POST /commerce/<app>/app-transaction`'s answer: what a verified app transaction says about the
/// person's copy of the app — where it was bought, and the version and date they first had it.
/// `appTransactionId` is absent when Apple's payload has none (app transactions before iOS 18.4).
struct AppTransactionDocument: Codable, Equatable {
    var bundleId: String
    var environment: String
    var originalApplicationVersion: String
    /// RFC 3339.
    var originalPurchaseDate: String
    var appTransactionId: String?

    init(bundleId: String, environment: String, originalApplicationVersion: String, originalPurchaseDate: String,
         appTransactionId: String?) {
        self.bundleId = bundleId
        self.environment = environment
        self.originalApplicationVersion = originalApplicationVersion
        self.originalPurchaseDate = originalPurchaseDate
        self.appTransactionId = appTransactionId
    }

    /// nil when the signed payload lacks a field the answer needs.
    init?(payload: AppleAppTransactionPayload) {
        guard let bundleId = payload.bundleId, let environment = payload.rawReceiptType,
              let version = payload.originalApplicationVersion, let date = payload.originalPurchaseDate else { return nil }
        self.init(bundleId: bundleId, environment: environment, originalApplicationVersion: version,
                  originalPurchaseDate: RFC3339.format(date), appTransactionId: payload.appTransactionId)
    }
}

/// The request: `{"appTransaction": "<JWS>"}` (StoreKit's `AppTransaction.shared`'s `jwsRepresentation`).
struct AppTransactionRequest: Decodable {
    var appTransaction: String
}
