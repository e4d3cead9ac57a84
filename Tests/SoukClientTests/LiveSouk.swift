import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HummingbirdTesting
import SoukApp
import SoukClient
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport

/// A real Souk on a free port (the real `buildApplication`, a fresh data folder and database), with
/// the reader catalog, one person with an access token and refresh token, and an Apple-shaped test
/// chain trusted as an extra root, so purchases signed with `chain` verify as the App Store's do.
struct LiveSouk: Sendable {
    static let app = CommerceCatalogSamples.readerApp
    static let clientId = "souk-client-tests"
    let serverURL: URL
    let chain: AppleTestChain
    let accessToken: String
    let refreshToken: String

    /// A client of this Souk over a real socket (URLSession), as the person.
    func client(accessToken: String? = nil) -> SoukClient {
        SoukClient(serverURL: serverURL, accessToken: accessToken ?? self.accessToken, transport: Self.transport)
    }

    /// Five minutes per request: a test server shares two loaded cores with the rest of the suite.
    static let transport = PatientTransport(timeout: 300)

    /// An Apple transaction of the reader product `productId`, signed by `chain`, bought a minute ago.
    func signedTransaction(_ productId: String, id: String = AppleTestTransaction.randomId()) -> (sku: String, id: String, jws: String) {
        let product = CommerceCatalogSamples.reader.products.first { $0.id == productId }!
        let sku = product.skus[.appleStore]!
        let purchased = Date().addingTimeInterval(-60)
        let transaction = AppleTestTransaction(
            bundleId: Self.app, productId: sku, type: product.type, transactionId: id, purchaseDate: purchased,
            expiresDate: product.type == .autoRenewable ? purchased.addingTimeInterval(30 * 86_400) : nil)
        return (sku, id, chain.signTransaction(transaction))
    }

    static func with(_ backend: TestBackend, _ test: @escaping @Sendable (LiveSouk) async throws -> Void) async throws {
        let chain = try AppleTestChain.make()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = try chain.writeRoot(in: URL(fileURLWithPath: folder.path))
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var config = SoukConfig(dataDir: folder.path + "/data", port: 0, publicURL: "https://souk.test", database: location)
        config.catalogRefreshMilliseconds = 0
        // Many servers share two cores in a test run (docs/development.md, "Test layout").
        config.databasePoolWaitSeconds = 120
        config.commerce.appleRootCertificates = [root]
        let runtime = try await SoukRuntime.open(config, logger: testLogger(), migrate: true)
        do {
            _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
            let account = AccountModel(email: "alice@example.com", passwordHash: "unused")
            try await account.create(on: runtime.database.db)
            let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
            let pair = try await runtime.tokens.exchange(subjectToken: grant, clientId: clientId).get()
            try await buildApplication(runtime).test(.live) { client in
                guard let port = client.port else { throw TestSetupError("the live test server has no port") }
                let serverURL = URL(string: "http://127.0.0.1:\(port)")!
                try await test(LiveSouk(serverURL: serverURL, chain: chain, accessToken: pair.accessToken, refreshToken: pair.refreshToken))
            }
        } catch {
            await runtime.close()
            await drop()
            throw error
        }
        await runtime.close()
        await drop()
    }
}
