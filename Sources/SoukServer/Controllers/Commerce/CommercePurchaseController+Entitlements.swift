import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

extension CommercePurchaseController {
    /// `GET entitlements`: one seed entitlement object per product the person is entitled to now.
    @Sendable func entitlementList(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let snapshot = try await entitlements.snapshot(buyer, catalog: catalog)
        return Response.json(bytes: WireJSON.encode(snapshot.productIds.map(EntitlementObject.init(id:))), cacheControl: "no-store")
    }

    /// `GET entitlement/<id>` (a product id, or an entitlement id): `200` entitlement object or the
    /// seed's `401`. With `?payment=` (the `Location` of an accepted purchase): `202` + `Retry-After`
    /// while that purchase is pending, the seed's `401` once it was refused.
    @Sendable func entitlement(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let id = try context.parameters.require("id")
        if let paymentText = request.uri.queryParameters["payment"], let paymentId = UUID(uuidString: String(paymentText)),
           let payment = try await purchases.payment(paymentId), payment.accountId == buyer.account {
            switch payment.status {
            case .pending:
                var response = paymentResponse(paymentId, status: .accepted)
                response.headers[.retryAfter] = "2"
                return response
            case .refused:
                return CommerceUnauthorized.response(.entitlement)
            case .granted:
                break
            }
        }
        guard try await entitlements.snapshot(buyer, catalog: catalog).access(to: id) != nil else {
            return CommerceUnauthorized.response(.entitlement)
        }
        return Response.json(bytes: WireJSON.encode(EntitlementObject(id: id)), cacheControl: "no-store")
    }

    /// `GET user-purchases`: the person's active purchases (never consumables) as a Pipes2 feed.
    @Sendable func userPurchases(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request, style: .userPurchases)
        let catalog = try await catalog(context)
        let snapshot = try await entitlements.snapshot(buyer, catalog: catalog)
        let entries = snapshot.activePurchases.map { access in
            let product = catalog.product(access.productId)
            return UserPurchasesFeed.Entry(
                type: .init(value: product.map { ProductLists.feedType($0.type) } ?? "subscription"), id: access.productId,
                title: product.flatMap { ProductFeed.text($0.title) } ?? access.productId,
                extensions: .init(startedAt: RFC3339.format(access.startedAt), expiresAt: access.expiresAt.map(RFC3339.format),
                                  environment: access.environment.rawValue, paymentId: access.paymentId.uuidString.lowercased()))
        }
        let feed = UserPurchasesFeed(id: "customer-\(buyer.account.uuidString.lowercased())-active-purchases",
                                     type: .init(value: "active-purchases"), title: "Customer Purchases", entry: entries)
        var response = Response.json(bytes: WireJSON.encode(feed), cacheControl: "no-store")
        response.headers[.contentType] = "application/vnd+applicaster.pipes2+json"
        return response
    }

    /// `POST restore`: re-attaches the signed transactions the device holds to the person's account
    /// (idempotent, under the transfer policy) and answers the entitlements after, as `GET entitlements`
    /// does. When some were refused, `Souk-Restore-Refused` counts them; when every one was refused, a
    /// `422` problem lists why (`failures`); a store that could not answer is a `503`, never a refusal.
    @Sendable func restore(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let body = try JSONDecoder().decode(RestoreRequest.self, from: Data(buffer: try await request.collectBody(upTo: 1 << 20)))
        guard body.signedTransactions.count <= Self.restoreLimit else {
            throw Problem(.badRequest, "At most \(Self.restoreLimit) signed transactions per restore.")
        }
        // Checked whole before any store is asked: an entry that is not signed data would otherwise
        // become a look-up by an empty id at the App Store Server API.
        if let index = body.signedTransactions.firstIndex(where: { !CompactJWS.isWellFormed($0) }) {
            throw Problem(.badRequest, "signedTransactions[\(index)] is not a compact JWS (three base64url parts joined by dots).",
                          type: "urn:souk:problem:malformed-restore")
        }
        var restored = 0
        var failures: [String] = []
        for (index, signed) in body.signedTransactions.enumerated() {
            let (outcome, _) = try await intake.restore(signedTransaction: signed, app: catalog.app, catalog: catalog, buyer: buyer)
            switch outcome {
            case .granted, .pending:
                restored += 1
            case .refused(_, let refusal):
                if refusal.code == PurchaseIntakeService.storeUnavailable {
                    var response = try Problem(.serviceUnavailable, "The store did not answer in time; try the restore again.")
                        .response(from: request, context: context)
                    response.headers[.retryAfter] = "5"
                    return response
                }
                failures.append("[\(index)] \(refusal.code): \(refusal.detail)")
            }
        }
        if restored == 0, !failures.isEmpty {
            throw Problem(.unprocessableContent, "No signed transaction could be restored. " + failures.joined(separator: " "),
                          type: "urn:souk:problem:restore-refused")
        }
        let snapshot = try await entitlements.snapshot(buyer, catalog: catalog)
        var response = Response.json(bytes: WireJSON.encode(snapshot.productIds.map(EntitlementObject.init(id:))), cacheControl: "no-store")
        if !failures.isEmpty { response.headers[.soukRestoreRefused] = String(failures.count) }
        return response
    }

    /// The most signed transactions one restore may carry (a device holds one per product it bought).
    static var restoreLimit: Int { 100 }

    /// `POST consume` (`{"productId": …, "quantity": n}`): uses a consumable, never below zero
    /// (`409` problem `insufficient-balance` then). Production balances are used before Sandbox ones.
    @Sendable func consume(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let body = try JSONDecoder().decode(ConsumeRequest.self, from: Data(buffer: try await request.collectBody(upTo: 1 << 16)))
        let quantity = body.quantity ?? 1
        guard (1...1_000_000).contains(quantity) else { throw Problem(.badRequest, "quantity must be from 1 to 1000000.") }
        guard let product = catalog.product(body.productId), product.type == .consumable else {
            throw Problem(.unprocessableContent, "\(body.productId) is not a consumable of \(catalog.app).", type: "urn:souk:problem:unknown-product")
        }
        var available = 0
        for environment in entitlements.environments(buyer, catalog: catalog) {
            switch try await purchases.consume(account: buyer.account, app: catalog.app, productId: product.id, environment: environment,
                                               quantity: quantity) {
            case .success(let balance):
                let answer = BalanceObject(productId: product.id, environment: environment.rawValue, balance: balance)
                return Response.json(bytes: WireJSON.encode(answer), cacheControl: "no-store")
            case .failure(.insufficient(let balance)):
                available += balance
            }
        }
        throw Problem(.conflict, "The balance of \(product.id) is \(available), less than \(quantity); nothing was used.",
                      type: "urn:souk:problem:insufficient-balance")
    }

    /// `GET balances`: the person's consumable balances in the environments they see.
    @Sendable func balances(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let catalog = try await catalog(context)
        let environments = Set(entitlements.environments(buyer, catalog: catalog))
        let balances = try await purchases.balances(account: buyer.account, app: catalog.app).filter { environments.contains($0.environment) }
        let answer = BalancesResponse(balances: balances.map {
            BalanceObject(productId: $0.productId, environment: $0.environment.rawValue, balance: $0.balance)
        })
        return Response.json(bytes: WireJSON.encode(answer), cacheControl: "no-store")
    }
}

extension HTTPField.Name {
    /// How many signed transactions of a restore that answers 200 were refused (absent: none).
    static let soukRestoreRefused = HTTPField.Name("Souk-Restore-Refused")!
}
