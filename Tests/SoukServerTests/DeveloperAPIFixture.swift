import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import SoukApp

/// Two developer organisations, Acme and Beta, each with a marketplace app and an in-app catalog
/// (Acme has a second app without one), a buyer with an account token in each, Beta's webhook and
/// grant, and API keys: Acme's with every scope, with only `metrics:read`, a revoked one, and Beta's.
struct DeveloperAPIWorld: Sendable {
    static let acmeItem: UInt64 = 6_600_000_001
    static let betaItem: UInt64 = 6_600_000_002
    static let acmeNotesItem: UInt64 = 6_600_000_003
    static let acmeApp = "org.acme.reader"
    static let betaApp = "org.beta.reader"
    static let acmeNotesApp = "org.acme.notes"
    static let buyerEmail = "buyer@example.com"

    var acmeKey: String
    var acmeKeyID: UUID
    var metricsOnlyKey: String
    var revokedKey: String
    var betaKey: String
    var buyer: UUID
    var acmeToken: UUID
    var betaToken: UUID
    var betaGrant: UUID
    var betaWebhook: UUID
    var folder: String

    /// A reader catalog (docs/commerce.md's sample) for `app`.
    static func catalogFile(_ app: String) -> String {
        CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: app)
    }

    /// Runs `test` against a server holding the world, on `backend`.
    static func with(_ backend: TestBackend, configure: (inout SoukConfig) -> Void = { _ in },
                     _ test: @escaping @Sendable (any TestClientProtocol, SoukRuntime, DeveloperAPIWorld) async throws -> Void) async throws {
        let box = Box<DeveloperAPIWorld>()
        try await ServerFixture.withRuntime(backend, configure: configure, prepare: { runtime, paths in
            box.value = try await prepare(runtime, folder: paths.folder)
        }) { client, runtime in
            try await test(client, runtime, box.value!)
        }
    }

    static func prepare(_ runtime: SoukRuntime, folder: String) async throws -> DeveloperAPIWorld {
        let directory = DeveloperDirectory(database: runtime.database)
        let operator_ = SoukActor.cli(user: "tester")
        _ = try await directory.create(name: "Acme", id: "acme")
        _ = try await directory.create(name: "Beta", id: "beta")
        for (item, bundle, developer) in [(acmeItem, acmeApp, "acme"), (betaItem, betaApp, "beta"), (acmeNotesItem, acmeNotesApp, "acme")] {
            _ = try await runtime.catalog.createApp(AppModel(appleItemId: item, bundleId: bundle, name: bundle, access: .public))
            _ = try await directory.setAppDeveloper(appleItemId: item, developer: developer)
        }
        for (app, developer) in [(acmeApp, "acme"), (betaApp, "beta")] {
            _ = try await runtime.commerceCatalogs.apply(try CatalogFile.parse(catalogFile(app)))
            _ = try await directory.setCatalogDeveloper(app: app, developer: developer)
        }
        let buyer = try await runtime.catalog.createAccount(email: buyerEmail, passwordHash: "-").requireID()
        let tokens = AccountTokenStore(database: runtime.database)
        guard let beta = try await runtime.commerceCatalogs.state(app: betaApp) else { throw CatalogError.notFound(betaApp) }
        let grant = try await EntitlementGrantStore(purchases: runtime.purchases)
            .grant(account: buyer, catalog: beta.catalog, entitlement: "premium", until: nil, reason: "press")
        let webhook = try await WebhookStore(database: runtime.database).add(app: betaApp, url: "https://hooks.beta.test/souk", secret: "beta-secret-0123456789")
        let all = Set(DeveloperScope.allCases)
        let acme = try await directory.createKey(developer: "acme", name: "ci", scopes: all, createdBy: operator_)
        let revoked = try await directory.createKey(developer: "acme", name: "old", scopes: all, createdBy: operator_)
        _ = try await directory.revokeKey(revoked.key.id)
        return DeveloperAPIWorld(
            acmeKey: acme.secret, acmeKeyID: acme.key.id,
            metricsOnlyKey: try await directory.createKey(developer: "acme", name: "metrics", scopes: [.metricsRead], createdBy: operator_).secret,
            revokedKey: revoked.secret,
            betaKey: try await directory.createKey(developer: "beta", name: "ci", scopes: all, createdBy: operator_).secret,
            buyer: buyer, acmeToken: try await tokens.token(account: buyer, app: acmeApp), betaToken: try await tokens.token(account: buyer, app: betaApp),
            betaGrant: grant.id, betaWebhook: webhook.id, folder: folder)
    }

    /// A zip of a sample package of `item`'s version `version` (bundle id `bundle`).
    func packageZip(item: UInt64 = acmeItem, version: UInt64, bundle: String = acmeApp) throws -> ByteBuffer {
        let out = "\(folder)/package-\(version)"
        _ = try SamplePackageMaker(appleItemId: item, appleVersionId: version, bundleId: bundle, shortVersion: "1.\(version % 100)",
                                   bundleVersion: "\(version % 100)", minimumOS: OSVersion("17.0")!, variantSize: 50_000, chunkSize: 16_384)
            .write(to: out)
        try PackageImporterZip.zip(contentsOf: out, to: out + ".zip")
        return ByteBuffer(data: try Data(contentsOf: URL(fileURLWithPath: out + ".zip")))
    }
}

extension TestClientProtocol {
    /// A developer API call with `key` as the bearer (none when nil).
    func developer(_ method: HTTPRequest.Method, _ path: String, key: String?, json: String? = nil, body: ByteBuffer? = nil,
                   contentType: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let key { headers[.authorization] = "Bearer \(key)" }
        if json != nil { headers[.contentType] = "application/json" }
        if let contentType { headers[.contentType] = contentType }
        return try await execute(uri: "/api/v1/developer/" + path, method: method, headers: headers,
                                 body: body ?? json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    var text: String { String(buffer: body) }
}
