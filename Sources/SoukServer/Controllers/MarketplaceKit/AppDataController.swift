import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `restore` and `updates` (spec §6): many apps per request, answered from the in-memory catalog
/// index; each item carries its package URL, a fresh install verification token and its share URL.
///
/// The handler gathers (body, bearer, catalog apps, marketplace identity), lets `AppDataDecision`
/// decide once per app, records restores in the install ledger, and writes. The common update check
/// (nothing new) touches no database, signs nothing and writes its answer with `JSONWriter`: see
/// docs/benchmarks.md for what each step cost.
struct AppDataController<Context: RequestContext> {
    let config: SoukConfig
    let index: CatalogIndex
    let catalog: CatalogStore
    let ledger: InstallLedger
    let bearer: BearerAuthenticator
    let keys: SoukKeys
    let signingKeys: InstallVerificationKeyring
    let payments: AppPayments
    /// The marketplace's AppleItemID, re-read at most once a second.
    let marketplaceIdentity = ShortLivedValue<UInt64>()

    static var maxBody: Int { 1 << 20 }

    func addRoutes(to router: Router<Context>) {
        router.post("marketplace-kit/v1/restore") { request, context in try await answer(.restore, request, context) }
        router.post("marketplace-kit/v1/updates") { request, context in try await answer(.updates, request, context) }
    }

    /// `POST /marketplace-kit/v1/restore` and `/updates`.
    func answer(_ kind: AppDataKind, _ request: Request, _ context: Context) async throws -> Response {
        let body = try await request.collectBody(upTo: Self.maxBody)
        let parsed: AppsRequest
        switch body.withUnsafeReadableBytes({ AppsRequest.parse(bytes: $0) }) {
        case .success(let value): parsed = value
        case .failure(.tooMany(let count)):
            throw Problem(.badRequest, "The request names \(count) apps; at most \(AppsRequest.maxApps) are answered at once.")
        case .failure(.malformed(let message)):
            throw Problem(.badRequest, message)
        }
        let identity = try await bearer.optionalBearer(request)  // 403 for a token that is present but invalid
        let found = try await index.apps(parsed.apps.map(\.appleItemId))
        if identity == nil, AppDataDecision.needsSignIn(parsed.apps, apps: found) {
            throw BearerChallenge(status: .unauthorized, realm: bearer.realm)
        }
        let outcomes = parsed.apps.map {
            AppDataDecision.decide(kind, $0, app: found[$0.appleItemId], platform: parsed.platform, osVersion: parsed.osVersion)
        }
        // Paid apps on offer the account may not have (free apps cost nothing here): a 402 failure each,
        // and a 402 answer when that is every app asked about.
        let offered = zip(parsed.apps, outcomes).compactMap { requested, outcome -> CatalogApp? in
            if case .offer = outcome { found[requested.appleItemId] } else { nil }
        }
        let verdicts = try await payments.unpaid(offered, accountID: identity?.accountID)
        var unpaid: [UInt64: (verdict: PaymentVerdict, app: CatalogApp)] = [:]
        for app in offered { if let verdict = verdicts[app.appleItemId] { unpaid[app.appleItemId] = (verdict, app) } }
        if !parsed.apps.isEmpty, parsed.apps.allSatisfy({ unpaid[$0.appleItemId] != nil }), let first = unpaid[parsed.apps[0].appleItemId] {
            throw Problem(HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"),
                          PaymentRule.description(first.verdict, pricing: first.app.pricing), type: "urn:souk:problem:\(first.verdict.rawValue)",
                          purchaseURL: payments.purchaseURL(first.app))
        }
        // The identity almost never changes: during a database outage the last one read still holds,
        // so an update check with nothing to sign is answered from memory.
        let marketplace = try await marketplaceIdentity.value(keepOnFailure: true) {
            try await catalog.marketplaceIdentity(defaultKeyId: keys.installVerificationKeyId).appleItemId
        }
        guard marketplace != 0 else {
            // Tokens with no issuer would all be refused by Apple: say so instead of handing them out.
            context.logger.error("restore/updates refused: the marketplace AppleItemID is not set (souk marketplace set --apple-item-id N)")
            throw Problem(.serviceUnavailable, "This marketplace is not fully configured yet.")
        }
        var downloadTypes: [UInt64: DownloadType] = [:]
        if kind == .restore, let identity {
            // A restore is where an install happens on the device's side: record it once per device.
            let offered = zip(parsed.apps, outcomes).compactMap { requested, outcome -> UInt64? in
                if case .offer = outcome, unpaid[requested.appleItemId] == nil { requested.appleItemId } else { nil }
            }
            downloadTypes = try await ledger.recordInstalls(accountID: identity.accountID, appleItemIds: offered, device: identity.clientId)
        }

        var items = JSONWriter(capacity: 512)
        var failures = JSONWriter(capacity: 64)
        let now = Date()
        for (requested, outcome) in zip(parsed.apps, outcomes) {
            switch outcome {
            case .skip:
                continue
            case .fail(let description):
                Self.failure(&failures, requested, code: 404, description: description)
            case .offer(let version):
                guard let app = found[requested.appleItemId] else { continue }
                if let refused = unpaid[app.appleItemId] {
                    Self.failure(&failures, requested, code: 402, description: PaymentRule.description(refused.verdict, pricing: app.pricing),
                                 purchaseURL: payments.purchaseURL(app))
                    continue
                }
                // Updates are not redownloads (spec §4); a restore without an account cannot be told
                // from a reinstall, and a restore with one follows the ledger.
                let downloadType: DownloadType = kind == .updates ? .download : downloadTypes[app.appleItemId] ?? .redownload
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

    /// One `failures` entry (spec §6), keeping the requested version id.
    static func failure(_ failures: inout JSONWriter, _ requested: AppsRequest.App, code: Int, description: String, purchaseURL: String? = nil) {
        failures.beginObject()
        failures.field("appleItemId", String(requested.appleItemId))
        failures.field("appleVersionId", String(requested.appleVersionId ?? 0))
        failures.key("failure")
        failures.beginObject()
        failures.key("code")
        failures.integer(code)
        failures.field("description", description)
        if let purchaseURL { failures.field("purchaseURL", purchaseURL) }
        failures.endObject()
        failures.endObject()
    }
}
