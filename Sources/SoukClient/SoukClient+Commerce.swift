import Foundation
import OpenAPIRuntime

extension SoukClient {
    /// The SKUs an app hands to StoreKit or Play Billing: the products on sale in `app`'s catalog,
    /// in catalog order, for `store` (`GET /commerce/{app}/products_v1.json`; no token needed).
    public func products(app: String, store: Store = .appleStore) async throws -> [String] {
        let output = try await SoukClientError.mapping {
            try await generated.getProductsV1(path: .init(app: app), query: .init(store: .init(rawValue: store.rawValue)))
        }
        switch output {
        case .ok(let ok): return try ok.body.json
        case .notFound(let notFound): throw SoukClientError.notFound(SoukProblem(try notFound.body.applicationProblemJson))
        case .badRequest(let bad): throw SoukClientError.refused(SoukProblem(try bad.body.applicationProblemJson))
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .notModified: throw SoukClientError.unexpectedResponse(status: 304)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }

    /// Reports a purchase for Souk to verify with the store and record for the person
    /// (`POST /commerce/{app}/transactions`, a CloudEvents payment-validation event in binary mode).
    public func postTransaction(app: String, _ purchase: StorePurchase) async throws -> PaymentOutcome {
        let data = Components.Schemas.PaymentValidationData(
            transaction: .init(storeProductId: purchase.storeProductId, transactionId: purchase.transactionId,
                               userId: purchase.storeUserId, receipt: purchase.receipt.map { OpenAPIValueContainer(stringLiteral: $0) }),
            productId: purchase.productId, store: purchase.store.rawValue)
        let headers = Operations.ReportTransaction.Input.Headers(
            ceSpecversion: "1.0", ceId: purchase.eventId, ceSource: purchase.source, ceType: Self.paymentValidationType)
        let output = try await SoukClientError.mapping {
            try await generated.reportTransaction(path: .init(app: app), headers: headers, body: .json(.init(value2: data)))
        }
        switch output {
        case .created(let created): return .recorded(paymentId: try created.body.applicationVnd_apiJson.data.id)
        case .accepted(let accepted):
            return .pending(paymentId: try accepted.body.applicationVnd_apiJson.data.id, location: accepted.headers.location)
        case .badRequest(let bad): throw SoukClientError.refused(SoukProblem(try bad.body.applicationProblemJson))
        case .unprocessableContent(let refused): throw SoukClientError.refused(SoukProblem(try refused.body.applicationProblemJson))
        case .unauthorized: throw SoukClientError.unauthorized
        case .notFound(let notFound): throw SoukClientError.notFound(SoukProblem(try notFound.body.applicationProblemJson))
        case .tooManyRequests(let busy): throw SoukClientError.unavailable(retryAfter: busy.headers.retryAfter)
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .contentTooLarge: throw SoukClientError.unexpectedResponse(status: 413)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }

    /// The CloudEvents `type` of a purchase report.
    static let paymentValidationType = "com.applicaster.payment.validate"

    /// The person's entitlements in `app`, sorted by product id (`GET /commerce/{app}/entitlements`).
    public func entitlements(app: String) async throws -> [Entitlement] {
        let output = try await SoukClientError.mapping { try await generated.listEntitlements(path: .init(app: app)) }
        switch output {
        case .ok(let ok): return try ok.body.json.map { Entitlement(productId: $0.id) }
        case .unauthorized: throw SoukClientError.unauthorized
        case .notFound(let notFound): throw SoukClientError.notFound(SoukProblem(try notFound.body.applicationProblemJson))
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }

    /// Re-attaches StoreKit 2's signed transactions (`Transaction.currentEntitlements`' JWS) to the
    /// person (`POST /commerce/{app}/restore`). Throws ``SoukClientError/refused(_:)`` with
    /// `urn:souk:problem:restore-refused` when every one was refused.
    public func restore(app: String, signedTransactions: [String]) async throws -> RestoreResult {
        let output = try await SoukClientError.mapping {
            try await generated.restorePurchases(path: .init(app: app), body: .json(.init(signedTransactions: signedTransactions)))
        }
        switch output {
        case .ok(let ok):
            return RestoreResult(entitlements: try ok.body.json.map { Entitlement(productId: $0.id) },
                                 refusedCount: ok.headers.soukRestoreRefused.flatMap { Int($0) } ?? 0)
        case .badRequest(let bad): throw SoukClientError.refused(SoukProblem(try bad.body.applicationProblemJson))
        case .unprocessableContent(let refused): throw SoukClientError.refused(SoukProblem(try refused.body.applicationProblemJson))
        case .unauthorized: throw SoukClientError.unauthorized
        case .notFound(let notFound): throw SoukClientError.notFound(SoukProblem(try notFound.body.applicationProblemJson))
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .contentTooLarge: throw SoukClientError.unexpectedResponse(status: 413)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }

    /// The person's account token in `app`: StoreKit's `appAccountToken`, Play Billing's
    /// `obfuscatedAccountId`; the same for this person and app for ever (`GET /commerce/{app}/account-token`).
    public func accountToken(app: String) async throws -> UUID {
        let output = try await SoukClientError.mapping { try await generated.getAccountToken(path: .init(app: app)) }
        switch output {
        case .ok(let ok):
            let token = try ok.body.json.accountToken
            guard let uuid = UUID(uuidString: token) else { throw SoukClientError.unexpectedResponse(status: 200) }
            return uuid
        case .unauthorized: throw SoukClientError.unauthorized
        case .notFound(let notFound): throw SoukClientError.notFound(SoukProblem(try notFound.body.applicationProblemJson))
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }
}
