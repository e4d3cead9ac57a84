import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// A token issued to a client registered with `--app` works only at `/commerce/<app>/…` and
/// `/api/v1/…`; anywhere else it is the payment-provider API's 401. Unregistered tokens work
/// everywhere, as before.
@Suite struct AppBoundTokenTests {
    static let app = CommerceCatalogSamples.readerApp

    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await OAuthTests.prepareAccount(runtime, paths)
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.reader)
    }

    /// Tokens for Ada issued to `clientId` (through an install grant's exchange: the binding is
    /// the client's, however the tokens were obtained).
    static func token(_ runtime: SoukRuntime, clientId: String) async throws -> String {
        let account = try #require(try await runtime.catalog.account(email: "ada@example.com"))
        let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
        return try await runtime.tokens.exchange(subjectToken: grant, clientId: clientId).get().accessToken
    }

    @Test(arguments: TestBackend.available)
    func aBoundTokenActsOnlyForItsApp(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let tv = try await DeviceAuthorizationTests.register(runtime, app: Self.app)
            let bound = try await Self.token(runtime, clientId: tv)
            let header: HTTPFields = [.authorization: "Bearer \(bound)"]
            #expect(try await client.execute(uri: "/commerce/\(Self.app)/entitlements", method: .get, headers: header).status == .ok)
            #expect(try await client.execute(uri: "/commerce/\(Self.app)/user-purchases?access_token=\(bound)", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/api/v1/account", method: .get, headers: header).status == .ok)

            let other = try await client.execute(uri: "/commerce/org.example.other/entitlements", method: .get, headers: header)
            #expect(other.status == .unauthorized)
            #expect(try OAuthTests.json(other) as NSDictionary == ["statusText": "Unauthorized", "status": 401])
            #expect(other.headers[.wwwAuthenticate]?.contains("error=\"invalid_token\"") == true)
            let purchases = try await client.execute(uri: "/commerce/org.example.other/user-purchases?access_token=\(bound)", method: .get)
            #expect(purchases.status == .unauthorized)
            #expect(try OAuthTests.json(purchases) as NSDictionary == ["error": "Unauthorized", "status": 401])
            for path in ["/apps", "/.well-known/marketplace-kit", "/account"] {
                let elsewhere = try await client.execute(uri: path, method: .get, headers: header)
                #expect(elsewhere.status == .unauthorized, "\(path)")
                #expect(try OAuthTests.json(elsewhere)["statusText"] as? String == "Unauthorized")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func unboundTokensWorkEverywhereAndRemovingAClientRevokesItsTokens(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let free = try await Self.token(runtime, clientId: "D4C1C937-0001")
            let unboundClient = try await DeviceAuthorizationTests.register(runtime)
            let unbound = try await Self.token(runtime, clientId: unboundClient)
            for token in [free, unbound] {
                let header: HTTPFields = [.authorization: "Bearer \(token)"]
                #expect(try await client.execute(uri: "/commerce/\(Self.app)/entitlements", method: .get, headers: header).status == .ok)
                #expect(try await client.execute(uri: "/commerce/org.example.other/entitlements", method: .get, headers: header).status != .unauthorized)
                #expect(try await client.execute(uri: "/apps", method: .get, headers: header).status == .ok)
            }
            let bound = try await DeviceAuthorizationTests.register(runtime, name: "Bound", app: Self.app)
            let token = try await Self.token(runtime, clientId: bound)
            #expect(try await ClientRegistry(database: runtime.database).remove(clientId: bound, actor: "test"))
            let after = try await client.execute(uri: "/api/v1/account", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(after.status == .forbidden)
            let audit = try await AuditLog(database: runtime.database).list(target: "client:\(bound)")
            #expect(audit.map(\.action) == ["client.remove", "client.add"])
        }
    }
}
