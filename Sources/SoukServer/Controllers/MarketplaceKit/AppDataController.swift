import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// `restore` and `updates` (spec §6): many apps per request, answered with a fixed number of
/// queries; each item carries its package URL, a fresh install verification token and its share URL.
struct AppDataController<Context: RequestContext> {
    let config: SoukConfig
    let apps: AppDataQuery
    let catalog: CatalogStore
    let ledger: InstallLedger
    let bearer: BearerAuthenticator
    let keys: SoukKeys
    /// The marketplace identity, re-read at most once a second.
    let marketplaceIdentity = ShortLivedCache<Int, MarketplaceIdentity>()

    struct MarketplaceIdentity: Sendable {
        var appleItemId: UInt64
        var keyId: String
    }

    enum Kind: String {
        case restore = "restores"
        case updates = "updates"
    }

    static var maxBody: Int { 1 << 20 }

    func addRoutes(to router: Router<Context>) {
        router.post("marketplace-kit/v1/restore") { request, context in try await answer(.restore, request, context) }
        router.post("marketplace-kit/v1/updates") { request, context in try await answer(.updates, request, context) }
    }

    func answer(_ kind: Kind, _ request: Request, _ context: Context) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBody)
        } catch {
            throw Problem(.contentTooLarge, "The request body is larger than \(Self.maxBody) bytes.")
        }
        let parsed: AppsRequest
        switch AppsRequest.parse(Data(buffer: body)) {
        case .success(let value): parsed = value
        case .failure(.tooMany(let count)):
            throw Problem(.contentTooLarge, "The request names \(count) apps; at most \(AppsRequest.maxApps) are answered at once.")
        case .failure(.malformed(let message)):
            throw Problem(.badRequest, message)
        }
        let identity = try await bearer.optionalBearer(request)  // 403 for a token that is present but invalid
        let found = try await apps.apps(parsed.apps.map(\.appleItemId))
        if identity == nil, parsed.apps.contains(where: { found[$0.appleItemId].map { $0.availability == .available && $0.access == .account } ?? false }) {
            throw BearerChallenge(status: .unauthorized, realm: bearer.realm)
        }
        let marketplace = try await marketplaceIdentity.value(for: 0) {
            let model = try await catalog.marketplace(defaultKeyId: keys.installVerificationKeyId)
            return MarketplaceIdentity(appleItemId: model.appleItemId, keyId: model.installVerificationKeyId)
        }!
        guard marketplace.appleItemId != 0 else {
            // Tokens with no issuer would all be refused by Apple: say so instead of handing them out.
            context.logger.error("restore/updates refused: the marketplace AppleItemID is not set")
            throw Problem(.serviceUnavailable, "This marketplace is not fully configured yet.")
        }
        // Built only when an item needs a token: the common update check ("nothing new") signs nothing.
        var signer: InstallVerificationSigner?
        var installedBefore: Set<UInt64> = []
        if let identity {
            installedBefore = try await ledger.installedApps(accountID: identity.accountID, among: parsed.apps.map(\.appleItemId))
        }

        var items: [[String: Any]] = []
        var failures: [[String: Any]] = []
        var restored: [UInt64] = []
        let now = Date()
        for requested in parsed.apps {
            func fail(_ description: String) {
                failures.append(["appleItemId": String(requested.appleItemId),
                                 "appleVersionId": String(requested.appleVersionId ?? 0),
                                 "failure": ["code": 404, "description": description]])
            }
            guard let app = found[requested.appleItemId] else { fail("App unavailable."); continue }
            switch app.availability {
            case .available: break
            case .removedByDeveloper: fail("The developer removed this app."); continue
            case .takenDown: fail("This app is no longer available."); continue
            }
            let version: CatalogVersion
            let downloadType: DownloadType
            switch kind {
            case .restore:
                guard let chosen = VersionChoice.restore(app.versions, requested: requested.appleVersionId,
                                                         platform: parsed.platform, osVersion: parsed.osVersion) else {
                    fail("No version of this app runs on \(parsed.platform) \(parsed.osVersion).")
                    continue
                }
                version = chosen
                // A restore reinstalls what a person had; with an account the ledger knows for sure.
                downloadType = identity == nil || installedBefore.contains(app.appleItemId) ? .redownload : .download
                restored.append(app.appleItemId)
            case .updates:
                switch VersionChoice.update(app.versions, installed: requested.appleVersionId,
                                            platform: parsed.platform, osVersion: parsed.osVersion) {
                case .current: continue
                case .noCompatibleVersion:
                    fail("No version of this app runs on \(parsed.platform) \(parsed.osVersion).")
                    continue
                case .newer(let newer):
                    version = newer
                    downloadType = .download  // updates are not redownloads (spec §4)
                }
            }
            let claims = InstallVerificationClaims(issuer: marketplace.appleItemId, bundleId: app.bundleId, downloadType: downloadType,
                                                   appleItemId: app.appleItemId, appleVersionId: version.appleVersionId, issuedAt: now)
            if signer == nil { signer = try await InstallVerificationSigner(keys: keys, kid: marketplace.keyId) }
            let token = try await signer!.sign(claims)
            var item: [String: Any] = [
                "appleItemId": String(app.appleItemId),
                "appleVersionId": String(version.appleVersionId),
                "alternativeDistributionPackage": "\(config.publicURL)/packages/\(app.appleItemId)/\(version.appleVersionId)/",
                "installVerificationToken": token,
                "appShareURL": "\(config.publicURL)/apps/\(app.appleItemId)",
            ]
            if kind == .updates {
                item["bundleVersion"] = version.bundleVersion
                item["shortVersionString"] = version.shortVersionString
            }
            items.append(item)
        }
        if let identity, !restored.isEmpty {
            try await ledger.record(accountID: identity.accountID, appleItemIds: restored, clientId: identity.clientId)
        }
        return .json([kind.rawValue: items, "failures": failures], cacheControl: "no-store")
    }
}
