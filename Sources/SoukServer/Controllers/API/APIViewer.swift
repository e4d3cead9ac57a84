import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The person behind a bearer token, read once per request for every app of a page: what they
/// bought (one query), their memberships (the entitlement index, once per entitlement named), and
/// which of the page's apps are installed on this device (one query on the install ledger). Each
/// app's `AppAction` is then decided from memory.
struct APIViewer: Sendable {
    let identity: TokenStore.Bearer
    let account: AccountRecord
    let owned: Set<UInt64>
    let memberships: [String: MembershipState]
    let installed: Set<UInt64>
    /// This marketplace can take this person's payment (a sandbox account always; else a processor is chosen).
    let sells: Bool

    func verdict(_ app: CatalogApp) -> PaymentVerdict {
        PaymentRule.decide(app.pricing, owned: owned.contains(app.appleItemId),
                           membership: app.pricing.requiresEntitlement.flatMap { memberships[$0] } ?? .never)
    }

    func access(_ app: CatalogApp, platform: Platform?, osVersion: OSVersion?, installedVersionId: UInt64? = nil) -> APIAccess {
        let verdict = verdict(app)
        let action = AppAction.decide(app, verdict: verdict, sells: sells,
                                      device: AppAction.Device(platform: platform, osVersion: osVersion,
                                                               installed: installed.contains(app.appleItemId),
                                                               installedVersionId: installedVersionId))
        let detail: String? = switch action.why {
        case .purchaseRequired?, .subscriptionExpired?: PaymentRule.description(verdict, pricing: app.pricing)
        case .noVersion?: "No version of this app is offered yet."
        case .incompatibleDevice?: "No version of this app runs on \(platform?.rawValue ?? "") \(osVersion?.description ?? "")."
        case .notForSale?: "This app is not for sale yet: this marketplace does not take payments."
        case nil: nil
        }
        return APIAccess(action: action.kind.rawValue, why: action.why?.rawValue, detail: detail)
    }
}

/// Reads an `APIViewer` from a request's bearer token: nil without one, `403` for a bad one.
struct APIViewerReader: Sendable {
    let bearer: BearerAuthenticator
    let people: PeopleDirectory
    let orders: MarketplaceOrderStore
    let payments: AppPayments
    let ledger: InstallLedger
    let paymentProcessor: String

    func viewer(_ request: Request, apps: [CatalogApp]) async throws -> APIViewer? {
        guard let identity = try await bearer.optionalBearer(request) else { return nil }
        guard let account = try await people.account(id: identity.accountID), !account.disabled else {
            throw BearerChallenge(status: .forbidden, realm: bearer.realm)
        }
        let paid = apps.filter { !$0.pricing.prices.isEmpty }
        let owned = paid.isEmpty ? [] : Set(try await orders.orders(account: identity.accountID).filter { $0.status == .paid }.map(\.appleItemId))
        var memberships: [String: MembershipState] = [:]
        for entitlement in Set(apps.compactMap(\.pricing.requiresEntitlement)) {
            memberships[entitlement] = try await payments.membership(entitlement, account: account)
        }
        let installed = apps.isEmpty ? [] : try await ledger.installed(accountID: identity.accountID, device: identity.clientId,
                                                                       among: apps.map(\.appleItemId))
        return APIViewer(identity: identity, account: account, owned: owned, memberships: memberships, installed: installed,
                         sells: account.sandbox || paymentProcessor != "none")
    }
}
