import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// `restore` and `updates` (spec §6): many apps per request, answered from the in-memory catalog
/// index; each item carries its package URL, a fresh install verification token and its share URL.
///
/// The common update check (nothing new) touches no database, signs nothing and writes its answer
/// with `JSONWriter`: see docs/benchmarks.md for what each step cost.
struct AppDataController<Context: RequestContext> {
    let config: SoukConfig
    let index: CatalogIndex
    let catalog: CatalogStore
    let ledger: InstallLedger
    let bearer: BearerAuthenticator
    let keys: SoukKeys
    let signingKeys: InstallVerificationKeyring
    /// The marketplace's AppleItemID, re-read at most once a second.
    let marketplaceIdentity = ShortLivedValue<UInt64>()

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
        let body = try await request.collectBody(upTo: Self.maxBody)
        let parsed: AppsRequest
        switch body.withUnsafeReadableBytes({ AppsRequest.parse(bytes: $0) }) {
        case .success(let value): parsed = value
        case .failure(.tooMany(let count)):
            throw Problem(.contentTooLarge, "The request names \(count) apps; at most \(AppsRequest.maxApps) are answered at once.")
        case .failure(.malformed(let message)):
            throw Problem(.badRequest, message)
        }
        let identity = try await bearer.optionalBearer(request)  // 403 for a token that is present but invalid
        let found = try await index.apps(parsed.apps.map(\.appleItemId))
        if identity == nil, parsed.apps.contains(where: { found[$0.appleItemId].map { $0.availability == .available && $0.access == .account } ?? false }) {
            throw BearerChallenge(status: .unauthorized, realm: bearer.realm)
        }
        let marketplace = try await marketplaceIdentity.value {
            try await catalog.marketplace(defaultKeyId: keys.installVerificationKeyId).appleItemId
        }
        guard marketplace != 0 else {
            // Tokens with no issuer would all be refused by Apple: say so instead of handing them out.
            context.logger.error("restore/updates refused: the marketplace AppleItemID is not set")
            throw Problem(.serviceUnavailable, "This marketplace is not fully configured yet.")
        }
        var installedBefore: Set<UInt64> = []
        if kind == .restore, let identity {
            installedBefore = try await ledger.installedApps(accountID: identity.accountID, among: parsed.apps.map(\.appleItemId))
        }

        var items = JSONWriter(capacity: 512)
        var failures = JSONWriter(capacity: 64)
        var restored: [UInt64] = []
        let now = Date()
        for requested in parsed.apps {
            func fail(_ description: String) {
                failures.beginObject()
                failures.field("appleItemId", String(requested.appleItemId))
                failures.field("appleVersionId", String(requested.appleVersionId ?? 0))
                failures.key("failure")
                failures.beginObject()
                failures.key("code")
                failures.integer(404)
                failures.field("description", description)
                failures.endObject()
                failures.endObject()
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
            let token = try await signingKeys.token(bundleId: app.bundleId, downloadType: downloadType, appleItemId: app.appleItemId,
                                                    appleVersionId: version.appleVersionId, marketplace: marketplace, now: now)
            items.beginObject()
            items.field("appleItemId", String(app.appleItemId))
            items.field("appleVersionId", String(version.appleVersionId))
            items.field("alternativeDistributionPackage", "\(config.publicURL)/packages/\(app.appleItemId)/\(version.appleVersionId)/")
            items.field("installVerificationToken", token)
            items.field("appShareURL", "\(config.publicURL)/apps/\(app.appleItemId)")
            if kind == .updates {
                items.field("bundleVersion", version.bundleVersion)
                items.field("shortVersionString", version.shortVersionString)
            }
            items.endObject()
        }
        if let identity, !restored.isEmpty {
            try await ledger.record(accountID: identity.accountID, appleItemIds: restored, clientId: identity.clientId)
        }
        // {"failures":[…],"<kind>":[…]}: the members are already JSON; only the brackets are added here.
        var answer: [UInt8] = []
        answer.reserveCapacity(items.bytes.count + failures.bytes.count + 32)
        answer.append(contentsOf: #"{"failures":["#.utf8)
        answer.append(contentsOf: failures.bytes)
        answer.append(contentsOf: #"],""#.utf8)
        answer.append(contentsOf: kind.rawValue.utf8)
        answer.append(contentsOf: #"":["#.utf8)
        answer.append(contentsOf: items.bytes)
        answer.append(contentsOf: "]}".utf8)
        return .json(bytes: answer, cacheControl: "no-store")
    }
}
