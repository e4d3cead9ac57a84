import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import SoukApp
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct AppDataTests {
    /// App 1 (public): 1.1 for iOS 17.0+, then 1.2 for iOS 17.4+. App 2 (account): one version.
    /// App 3: taken down. App 4: only for iOS 18.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await OAuthTests.prepareAccount(runtime, paths)
        let day: TimeInterval = 86_400
        try await runtime.importSample(appleItemId: 1, appleVersionId: 101, bundleId: "org.example.one", minimumOS: "17.0",
                                       releaseDate: Date(timeIntervalSinceNow: -2 * day), in: paths.folder)
        try await runtime.importSample(appleItemId: 1, appleVersionId: 102, bundleId: "org.example.one", minimumOS: "17.4",
                                       releaseDate: Date(timeIntervalSinceNow: -day), in: paths.folder)
        try await runtime.importSample(appleItemId: 2, appleVersionId: 201, bundleId: "org.example.two", access: .account, in: paths.folder)
        try await runtime.importSample(appleItemId: 3, appleVersionId: 301, bundleId: "org.example.three", in: paths.folder)
        try await runtime.catalog.setAvailability(appleItemId: 3, to: .takenDown)
        try await runtime.importSample(appleItemId: 4, appleVersionId: 401, bundleId: "org.example.four", minimumOS: "18.0", in: paths.folder)
        let marketplace = try await runtime.catalog.marketplace(defaultKeyId: runtime.keys.installVerificationKeyId)
        marketplace.appleItemId = 6_446_000_000
        try await runtime.catalog.updateMarketplace(marketplace)
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/marketplace-kit/v1/\(path)", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test(arguments: TestBackend.available)
    func restoreAnswersEachAppWithAPackageATokenOrA404Failure(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let response = try await Self.post(client, "restore", """
                {"apps": [{"appleItemId": "1", "appleVersionId": "101"}, {"appleItemId": 3, "appleVersionID": 301},
                          {"appleItemId": "99", "appleVersionId": "5"}, {"appleItemId": "4", "appleVersionId": "0"}],
                 "platform": "iOS", "osVersion": "17.4"}
                """)
            #expect(response.status == .ok)
            let body = try Self.json(response)
            let restores = try #require(body["restores"] as? [[String: Any]])
            #expect(restores.count == 1)
            #expect(restores[0]["appleItemId"] as? String == "1")
            #expect(restores[0]["appleVersionId"] as? String == "101")
            #expect(restores[0]["alternativeDistributionPackage"] as? String == "https://souk.test/packages/1/101/")
            #expect(restores[0]["appShareURL"] as? String == "https://souk.test/apps/1")
            let failures = try #require(body["failures"] as? [[String: Any]])
            #expect(failures.map { $0["appleItemId"] as? String } == ["3", "99", "4"])
            #expect(failures.map { $0["appleVersionId"] as? String } == ["301", "5", "0"])
            #expect(failures.allSatisfy { ($0["failure"] as? [String: Any])?["code"] as? Int == 404 })

            // The token verifies against the JWKS, for this app and version.
            let jwks = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
            let claims = try await JWTKeyCollection().add(jwksJSON: jwks)
                .verify(try #require(restores[0]["installVerificationToken"] as? String), as: InstallVerificationClaims.self)
            #expect(claims.bid == "org.example.one")
            #expect(claims.vid == "101")
            #expect(claims.iss == "6446000000")
            #expect(claims.dtype == .redownload)
        }
    }

    @Test func restoreFallsBackToTheNewestCompatibleVersion() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepare) { client in
            let newest = try Self.json(try await Self.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "0"}], "platform": "ipados", "osVersion": "17.10"}"#))
            #expect((newest["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "102")
            let older = try Self.json(try await Self.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.3"}"#))
            #expect((older["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "101")
        }
    }

    @Test(arguments: TestBackend.available)
    func updatesListOnlyNewerCompatibleVersions(_ backend: TestBackend) async throws {
        try await ServerFixture.with(backend, prepare: Self.prepare) { client in
            let response = try await Self.post(client, "updates", """
                {"apps": [{"appleItemId": "1", "appleVersionId": "101"}, {"appleItemId": "4", "appleVersionId": "401"}],
                 "platform": "iOS", "osVersion": "17.4"}
                """)
            let body = try Self.json(response)
            let updates = try #require(body["updates"] as? [[String: Any]])
            #expect(updates.count == 1)
            #expect(updates[0]["appleVersionId"] as? String == "102")
            #expect(updates[0]["shortVersionString"] as? String == "1.2")
            #expect(updates[0]["bundleVersion"] as? String == "2")
            #expect((body["failures"] as? [[String: Any]])?.map { $0["appleItemId"] as? String } == ["4"])

            let current = try Self.json(try await Self.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((current["updates"] as? [Any])?.isEmpty == true)
            #expect((current["failures"] as? [Any])?.isEmpty == true)

            let olderDevice = try Self.json(try await Self.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.2"}"#))
            #expect((olderDevice["updates"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func accountAppsNeedAValidBearerToken(_ backend: TestBackend) async throws {
        let box = Box<SoukRuntime>()
        try await ServerFixture.with(backend, prepare: { runtime, paths in
            try await Self.prepare(runtime, paths)
            box.value = runtime
        }) { client in
            let body = #"{"apps": [{"appleItemId": "2", "appleVersionId": "201"}], "platform": "iOS", "osVersion": "17.4"}"#
            let anonymous = try await Self.post(client, "restore", body)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try await Self.post(client, "restore", body, token: "sat_forged").status == .forbidden)
            #expect(try await Self.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}"#,
                token: "sat_forged").status == .forbidden)

            let runtime = box.value!
            let account = try await runtime.catalog.requireAccount(email: "ada@example.com")
            let grant = try await runtime.tokens.issueInstallGrant(accountID: try account.requireID())
            let pair = try await runtime.tokens.exchange(subjectToken: grant, clientId: "iphone").get()
            let first = try Self.json(try await Self.post(client, "restore", body, token: pair.accessToken))
            let restores = try #require(first["restores"] as? [[String: Any]])
            #expect(restores.count == 1)
            let jwks = String(buffer: try await client.execute(uri: "/.well-known/jwks.json", method: .get).body)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
            let firstClaims = try await keys.verify(try #require(restores[0]["installVerificationToken"] as? String), as: InstallVerificationClaims.self)
            #expect(firstClaims.dtype == .download)
            // A retry of the same install (same device, minutes later) signs the same type.
            let retry = try Self.json(try await Self.post(client, "restore", body, token: pair.accessToken))
            #expect(try await keys.verify(try #require((retry["restores"] as? [[String: Any]])?.first?["installVerificationToken"] as? String),
                                          as: InstallVerificationClaims.self).dtype == .download)
            // The install was recorded: another device of the account redownloads.
            let ipad = try await runtime.tokens.exchange(subjectToken: try await runtime.tokens.issueInstallGrant(accountID: try account.requireID()),
                                                         clientId: "ipad").get()
            let second = try Self.json(try await Self.post(client, "restore", body, token: ipad.accessToken))
            let secondClaims = try await keys.verify(try #require((second["restores"] as? [[String: Any]])?.first?["installVerificationToken"] as? String),
                                                     as: InstallVerificationClaims.self)
            #expect(secondClaims.dtype == .redownload)
        }
    }

    @Test(arguments: TestBackend.available)
    func withdrawnVersionsAnswer404FailuresAndUpdatesNeverDowngrade(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend) { client, runtime in
            // 1.2 (102) is withdrawn: a device on it neither restores it nor is offered 1.1.
            #expect(try await runtime.catalog.setWithdrawn(true, appleItemId: 1, appleVersionId: 102, reason: "crashes on launch"))
            #expect(try await !runtime.catalog.setWithdrawn(true, appleItemId: 1, appleVersionId: 102, reason: "crashes on launch"))
            let restore = try Self.json(try await Self.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((restore["restores"] as? [Any])?.isEmpty == true)
            let failure = try #require((restore["failures"] as? [[String: Any]])?.first)
            #expect(failure["appleVersionId"] as? String == "102")
            #expect((failure["failure"] as? [String: Any])?["code"] as? Int == 404)
            let updates = try Self.json(try await Self.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "102"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((updates["updates"] as? [Any])?.isEmpty == true)
            #expect((updates["failures"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "102")
            // "The latest" is the newest version still offered, and its package is served; the withdrawn one's is not.
            let latest = try Self.json(try await Self.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((latest["restores"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "101")
            #expect(try await client.execute(uri: "/packages/1/102/manifest.json", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/packages/1/101/manifest.json", method: .get).status == .ok)

            // Reinstated, it is offered again.
            #expect(try await runtime.catalog.setWithdrawn(false, appleItemId: 1, appleVersionId: 102))
            let back = try Self.json(try await Self.post(client, "updates",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}"#))
            #expect((back["updates"] as? [[String: Any]])?.first?["appleVersionId"] as? String == "102")
        }
    }

    @Test func malformedAndOversizedRequestsAreProblemsNot500s() async throws {
        try await ServerFixture.with(.sqlite, prepare: Self.prepare) { client in
            for body in ["not json", #"{"apps": "x", "platform": "iOS", "osVersion": "17.4"}"#,
                         #"{"apps": [{"appleItemId": "x"}], "platform": "iOS", "osVersion": "17.4"}"#,
                         #"{"apps": [], "platform": "iOS"}"#] {
                let response = try await Self.post(client, "restore", body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            let apps = (1...1001).map { #"{"appleItemId": "\#($0)"}"# }.joined(separator: ",")
            let tooMany = try await Self.post(client, "updates", #"{"apps": [\#(apps)], "platform": "iOS", "osVersion": "17.4"}"#)
            #expect(tooMany.status == .badRequest)  // the document's maxItems: a request that breaks it is a 400
        }
    }

    @Test func anUnconfiguredMarketplaceRefusesToHandOutTokens() async throws {
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            try await runtime.importSample(appleItemId: 1, appleVersionId: 101, bundleId: "org.example.one", in: paths.folder)
        }) { client in
            let response = try await Self.post(client, "restore",
                #"{"apps": [{"appleItemId": "1", "appleVersionId": "101"}], "platform": "iOS", "osVersion": "17.4"}"#)
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.contentType] == "application/problem+json")
        }
    }
}
