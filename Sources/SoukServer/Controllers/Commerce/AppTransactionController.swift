import Foundation
import Hummingbird
import SoukCore
import SoukIntegrations
import SoukStore

/// `POST /commerce/<app>/app-transaction` (the person's access token, as every payment-provider
/// route): `{"appTransaction": "<JWS>"}`, StoreKit's signed `AppTransaction`, verified like a signed
/// transaction (docs/commerce.md, "App transactions"): chain to Apple Root CA - G3, Apple's OIDs,
/// signature, the app's bundle id (and `appAppleId` in production when configured) and its
/// environment (`receiptType`) under the same rule as purchases — a sandbox account presents
/// Sandbox data, a production account Production data, or Sandbox data where the catalog allows
/// sandbox. Answers `200` `AppTransactionDocument` (`no-store`), so an app that went from paid to
/// free can honour the people who bought it; `400` unreadable body, `404` unknown app, `422`
/// problem (`invalid-app-transaction`, `wrong-app`, `wrong-environment`), `503` when this server
/// cannot verify Apple signed data.
struct AppTransactionController<Context: RequestContext> {
    let catalogs: CommerceCatalogCache
    let settings: StoreSettingsProvider
    let apple: AppleSignedDataVerifier?
    let authenticator: CommerceAuthenticator

    func addRoutes(to router: Router<Context>) {
        router.post("commerce/:app/app-transaction", use: appTransaction)
    }

    /// Verifies the app transaction and answers what it proves.
    @Sendable func appTransaction(_ request: Request, context: Context) async throws -> Response {
        let buyer = try await authenticator.buyer(request)
        let app = try context.parameters.require("app")
        guard let catalog = try await catalogs.state(app: app) else {
            throw Problem(.notFound, "No in-app products are sold for \(app) here.")
        }
        let body = try await request.collectBody(upTo: 64 * 1024)
        guard let sent = try? JSONDecoder().decode(AppTransactionRequest.self, from: Data(buffer: body)), !sent.appTransaction.isEmpty else {
            throw Problem(.badRequest, "The body is not {\"appTransaction\": \"<JWS>\"}.")
        }
        guard let apple else { throw Problem(.serviceUnavailable, "Apple signed data cannot be verified on this server.") }
        let configured = try await appleSettings(app)
        let environments: Set<CommerceEnvironment> = buyer.sandbox ? [.sandbox]
            : catalog.catalog.allowSandbox ? [.production, .sandbox] : [.production]
        let result = await apple.verifyAppTransaction(sent.appTransaction, bundleId: configured?.bundleId ?? app,
                                                      appAppleId: configured?.appAppleId, environments: environments)
        switch result {
        case .valid(let payload):
            guard let document = AppTransactionDocument(payload: payload) else {
                throw Problem(.unprocessableContent, "The app transaction lacks bundleId, receiptType, originalApplicationVersion or originalPurchaseDate.",
                              type: "urn:souk:problem:invalid-app-transaction")
            }
            return Response.json(bytes: WireJSON.encode(document), cacheControl: "no-store")
        case .invalid(let failure):
            context.logger.info("app transaction refused", metadata: ["app": "\(app)", "reason": "\(failure.reason.rawValue)"])
            let code = switch failure.reason {
            case .wrongApp: "wrong-app"
            case .wrongEnvironment: "wrong-environment"
            default: "invalid-app-transaction"
            }
            throw Problem(.unprocessableContent, "The app transaction does not verify (\(failure.reason.rawValue)): \(failure.detail).",
                          type: "urn:souk:problem:\(code)")
        }
    }

    func appleSettings(_ app: String) async throws -> AppleStoreSettings? {
        do {
            return try await settings(app)?.apple
        } catch {
            throw Problem(.serviceUnavailable, "The App Store settings of app \(app) cannot be read.")
        }
    }
}
