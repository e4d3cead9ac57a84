import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `POST /api/v1/apps/<appleItemId>/install` (bearer): what the marketplace app's Install button
/// needs — MarketplaceKit's `InstallMetadata` (`account`, `appleItemId`,
/// `alternativeDistributionPackage`, `isUpdate`, `appShareURL`) and, for `confirmInstall`, a fresh
/// `installVerificationToken` for `appleVersionId`, the newest version the device runs.
///
/// Body `{"platform": "iOS", "osVersion": "17.4", "installedVersionId": null}`. The token is signed
/// as a restore's is: an update (a newer version than `installedVersionId`) is `download`; an
/// install follows the install ledger for this device (the token's client) without recording
/// anything — the install is recorded when the device fetches its license and restores it
/// (docs/marketplacekit.md, "dtype"). Refusals, checked in this order: an app not available `404`;
/// no version the device runs `409` `incompatible-device` (with `minimumOS`); not paid for the
/// restore's `402` problem with `purchaseURL` and the `checkout` request to make.
struct InstallAPIController<Context: BearerRequestContext> {
    let bearer: BearerAuthenticator
    let index: CatalogIndex
    let catalog: CatalogStore
    let payments: AppPayments
    let ledger: InstallLedger
    let keys: SoukKeys
    let signingKeys: InstallVerificationKeyring
    let commerceCatalogs: CommerceCatalogCache
    let publicURL: String
    let paymentProcessor: String

    static var maxBody: Int { 16 * 1024 }

    func addRoutes(to router: Router<Context>) {
        addBearerRoutes(to: router.group().add(middleware: BearerMiddleware(authenticator: bearer)))
    }

    /// Every route of `router` (a group) needs a valid bearer token.
    private func addBearerRoutes(to router: RouterGroup<Context>) {
        router.post("api/v1/apps/:appleItemId/install", use: install)
    }

    struct InstallRequest: Decodable {
        var platform: String
        var osVersion: String
        var installedVersionId: FlexibleID?
    }

    /// `POST /api/v1/apps/<appleItemId>/install`.
    @Sendable func install(_ request: Request, context: Context) async throws -> Response {
        let identity = try context.requireBearer(realm: bearer.realm)
        guard let account = try await catalog.people.account(id: identity.accountID), !account.disabled else {
            throw BearerChallenge(status: .forbidden, realm: bearer.realm)
        }
        let body = try JSONDecoder().decode(InstallRequest.self, from: Data(buffer: try await request.collectBody(upTo: Self.maxBody)))
        guard let platform = Platform(rawValue: body.platform), let osVersion = OSVersion(body.osVersion) else {
            throw Problem(.badRequest, "platform is a platform name (iOS) and osVersion a version (17.4).")
        }
        let unavailable = Problem(.notFound, "This app is not available.")
        guard let appleItemId = AppleID.parse(try context.parameters.require("appleItemId")),
              let app = try await index.app(appleItemId), app.availability == .available else { throw unavailable }

        let (version, isUpdate) = try choose(app, platform: platform, osVersion: osVersion, installed: body.installedVersionId?.value)
        let verdict = try await payments.verdict(app, account: account)
        if verdict != .open {
            var problem = Problem(HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"),
                                  PaymentRule.description(verdict, pricing: app.pricing), type: "urn:souk:problem:\(verdict.rawValue)",
                                  purchaseURL: payments.purchaseURL(app))
            if account.sandbox || paymentProcessor != "none" { problem.checkout = try await checkout(app) }
            throw problem
        }
        let marketplace = try await catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId).appleItemId
        guard marketplace != 0 else {
            context.logger.error("install refused: the marketplace AppleItemID is not set (souk marketplace set --apple-item-id N)")
            throw Problem(.serviceUnavailable, "This marketplace is not fully configured yet.")
        }
        // Updates are not redownloads (docs/marketplacekit.md); an install follows this device's ledger.
        let downloadType: DownloadType = isUpdate
            ? .download : try await ledger.downloadType(accountID: identity.accountID, appleItemId: app.appleItemId, device: identity.clientId)
        let token = try await signingKeys.token(bundleId: app.bundleId, downloadType: downloadType, appleItemId: app.appleItemId,
                                                appleVersionId: version.appleVersionId, marketplace: marketplace)
        return .json([
            "account": account.email, "appleItemId": String(app.appleItemId), "appleVersionId": String(version.appleVersionId),
            "alternativeDistributionPackage": "\(publicURL)/packages/\(app.appleItemId)/\(version.appleVersionId)/",
            "isUpdate": isUpdate, "appShareURL": "\(publicURL)/apps/\(app.appleItemId)", "installVerificationToken": token,
        ], cacheControl: "no-store")
    }

    /// The newest version the device runs, and whether it replaces the installed one (a newer
    /// version than `installed`). Nothing it runs, or only versions older than a withdrawn one it
    /// has: `409` naming the lowest OS version the app needs on that platform.
    func choose(_ app: CatalogApp, platform: Platform, osVersion: OSVersion, installed: UInt64?) throws -> (CatalogVersion, Bool) {
        if let installed, installed != 0 {
            // The same rule as `updates`: a newer version than the installed one, never an older one.
            switch VersionChoice.update(app.versions, withdrawn: app.withdrawnVersions, installed: installed, platform: platform, osVersion: osVersion) {
            case .newer(let version): return (version, true)
            case .current: break
            case .withdrawn: throw incompatible(app, platform: platform, osVersion: osVersion, withdrawn: true)
            case .noCompatibleVersion: throw incompatible(app, platform: platform, osVersion: osVersion, withdrawn: false)
            }
        }
        guard case .restore(let version) = VersionChoice.restore(app.versions, requested: nil, platform: platform, osVersion: osVersion) else {
            throw incompatible(app, platform: platform, osVersion: osVersion, withdrawn: false)
        }
        return (version, false)
    }

    func incompatible(_ app: CatalogApp, platform: Platform, osVersion: OSVersion, withdrawn: Bool) -> Problem {
        // iPads install iOS packages: both count as this platform's.
        let names = platform == .iPadOS ? [Platform.iPadOS, .iOS] : [platform]
        let minimum = app.versions.flatMap { version in
            names.filter { version.platforms.contains($0) }.compactMap { version.minimumOS[$0] ?? OSVersion("0") }
        }.min()
        let shown = AppPagesController<SoukRequestContext>.platformName(platform.rawValue)
        let detail = withdrawn
            ? "The installed version was withdrawn and no newer version runs on \(shown) \(osVersion)."
            : minimum.map { "This app requires \(shown) \($0) or later." } ?? "No version of this app runs on \(shown)."
        var problem = Problem(.conflict, detail, type: "urn:souk:problem:incompatible-device")
        problem.minimumOS = ProblemMinimumOS(platform: platform.rawValue, version: minimum?.description)
        return problem
    }

    /// The checkout request that opens the app: buying it, or else the membership plan that includes it.
    func checkout(_ app: CatalogApp) async throws -> ProblemCheckout? {
        let url = "\(publicURL)/api/v1/checkout"
        if !app.pricing.prices.isEmpty { return ProblemCheckout(url: url, body: .init(appleItemId: String(app.appleItemId))) }
        guard let entitlement = app.pricing.requiresEntitlement,
              let plan = try await commerceCatalogs.state(app: AppPricing.marketplaceApp)?.catalog.products
                .first(where: { $0.type == .autoRenewable && $0.entitlements.contains(entitlement) }) else { return nil }
        return ProblemCheckout(url: url, body: .init(productId: plan.id))
    }
}

/// An id sent as a JSON string or number (devices send both for Apple ids); `null` is absence.
struct FlexibleID: Decodable, Sendable {
    let value: UInt64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt64.self) {
            value = number
        } else if let id = AppleID.parse(try container.decode(String.self)) {
            value = id
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an Apple id"))
        }
    }
}
