import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// Refunding a person's app order or membership plan through the processor that took the payment
/// (`RefundMarketplaceSale`, the operation `souk accounts refund` uses too),
/// or a Google Play in-app purchase at Google (`StoreRefunds`, as `souk purchases refund`); operators
/// only, on a lower role.
extension AdminController {
    func addRefundRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.post("people/:id/orders/:order/refund", use: refundOrder)
        routes.staff.post("people/:id/plans/:plan/refund", use: refundPlan)
        routes.staff.post("people/:id/purchases/:payment/refund", use: refundPurchase)
    }

    /// Refunds a person's Google Play purchase at Google (operators), as `souk purchases refund`
    /// does (`StoreRefunds`): `orders.refund` for a one-time product, `purchases.subscriptionsv2.revoke`
    /// for a subscription (`prorated=on`: the unused time only). Access ends when Google confirms
    /// it; no answer from Google refunds nothing (503), a refusal is shown as Google gave it (502).
    @Sendable func refundPurchase(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        guard let paymentId = context.parameters.get("payment").flatMap(UUID.init(uuidString:)) else {
            throw Problem(.notFound, "This person has no purchase with this id.")
        }
        let refunds = try services.stores.refunds()
        let prorated = ["on", "true", "1"].contains(form["prorated"] ?? "")
        func page(error: String?, notice: String?, status: HTTPResponse.Status) async throws -> Response {
            try await personPage(session: session, account: account, notice: notice, error: error, status: status)
        }
        let result: Result<StoreRefunds.Outcome, StoreRefunds.Failure>
        do {
            result = try await refunds.refund(paymentId, prorated: prorated, actor: Self.staffActor(session), of: account)
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        }
        switch result {
        case .success(.revoked(let payment, let method)):
            return try await page(error: nil, notice: "Refunded \(payment.productId) at Google Play (\(method)); Google confirms it, so access ended.",
                                  status: .ok)
        case .success(.requested(let payment, let method)):
            return try await page(error: nil, notice: "Refund of \(payment.productId) requested at Google Play (\(method)); access ends when Google confirms it.",
                                  status: .ok)
        case .failure(let failure):
            switch failure.kind {
            case .notFound: throw Problem(.notFound, "This person has no purchase with this id.")
            case .conflict: return try await page(error: failure.message, notice: nil, status: .conflict)
            case .badRequest: return try await page(error: failure.message, notice: nil, status: .badRequest)
            case .unavailable: return try await page(error: failure.message, notice: nil, status: .serviceUnavailable)
            case .refused: return try await page(error: failure.message, notice: nil, status: .badGateway)
            }
        }
    }

    /// Refunds a person's app order (`RefundMarketplaceSale.refundOrder`).
    @Sendable func refundOrder(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let order = context.parameters.get("order").flatMap(UUID.init(uuidString:))
        return try await refundSale(session: session, account: account) { try await $0.refundOrder(order, of: account, actor: $1) }
    }

    /// Refunds a person's membership plan (`RefundMarketplaceSale.refundPlan`).
    @Sendable func refundPlan(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let plan = context.parameters.get("plan").flatMap(UUID.init(uuidString:))
        return try await refundSale(session: session, account: account) { try await $0.refundPlan(plan, of: account, actor: $1) }
    }

    /// The person's page after `refund`: its message as a notice, or its failure as an error with
    /// the status of its kind (a refusal of the session's role is 403, an unknown id 404).
    private func refundSale(session: ConsoleSession, account: AccountRecord,
                            _ refund: (RefundMarketplaceSale, SoukActor) async throws -> RefundMarketplaceSale.Done) async throws -> Response {
        let status: HTTPResponse.Status
        let error: String
        do {
            let done = try await refund(services.refunds, Self.staffActor(session))
            return try await personPage(session: session, account: account, notice: done.message, error: nil, status: .ok)
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        } catch let failure as RefundMarketplaceSale.Failure {
            switch failure.kind {
            case .notFound: throw Problem(.notFound, failure.message)
            case .conflict: status = .conflict
            case .unavailable: status = .serviceUnavailable
            }
            error = failure.message
        }
        return try await personPage(session: session, account: account, notice: nil, error: error, status: status)
    }
}
