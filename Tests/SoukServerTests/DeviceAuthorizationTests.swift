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

/// The device authorization grant for TVs (RFC 8628) through the real application: the device
/// authorization endpoint, `/activate` with a signed-in person, and the token endpoint's polling
/// answers, on both databases.
@Suite struct DeviceAuthorizationTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    static func register(_ runtime: SoukRuntime, kind: RegisteredClient.Kind = .tv, name: String = "Living-room TV",
                         redirectURIs: [String] = [], app: String? = nil) async throws -> String {
        try await ClientRegistry(database: runtime.database)
            .add(name: name, kind: kind, redirectURIs: redirectURIs, app: app, actor: "test").get().clientId
    }

    static func start(_ client: any TestClientProtocol, clientId: String) async throws -> TestResponse {
        try await client.execute(uri: "/oauth/device_authorization", method: .post, headers: OAuthTests.formHeaders,
                                 body: OAuthTests.form(["client_id": clientId]))
    }

    static func poll(_ client: any TestClientProtocol, deviceCode: String, clientId: String) async throws -> TestResponse {
        try await client.execute(uri: "/oauth/token", method: .post, headers: OAuthTests.formHeaders, body: OAuthTests.form([
            "grant_type": grantType, "device_code": deviceCode, "client_id": clientId,
        ]))
    }

    static func error(_ response: TestResponse) throws -> String? {
        try OAuthTests.json(response)["error"] as? String
    }

    /// Posts the `/activate` form as the signed-in browser `cookie`.
    static func activate(_ client: any TestClientProtocol, cookie: String, userCode: String, decision: String? = nil) async throws -> TestResponse {
        let page = try await client.execute(uri: "/activate", method: .get, headers: [.cookie: cookie])
        let csrf = try #require(WebAccountTests.csrf(in: String(buffer: page.body)))
        var fields = ["csrf_token": csrf, "user_code": userCode]
        fields["decision"] = decision
        var headers = OAuthTests.formHeaders
        headers[.cookie] = cookie
        return try await client.execute(uri: "/activate", method: .post, headers: headers, body: OAuthTests.form(fields))
    }

    @Test(arguments: TestBackend.available)
    func aTVSignsInOnceAfterThePersonApproves(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: OAuthTests.prepareAccount) { client, runtime in
            let tv = try await Self.register(runtime)
            let started = try await Self.start(client, clientId: tv)
            #expect(started.status == .ok)
            #expect(started.headers[.cacheControl] == "no-store")
            let body = try OAuthTests.json(started)
            let deviceCode = try #require(body["device_code"] as? String)
            let userCode = try #require(body["user_code"] as? String)
            #expect(userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
            #expect(body["verification_uri"] as? String == "https://souk.test/activate")
            #expect(body["verification_uri_complete"] as? String == "https://souk.test/activate?user_code=\(userCode)")
            #expect(body["expires_in"] as? Int == 600)
            #expect(body["interval"] as? Int == 5)

            // Pending; then a poll sooner than the interval is slow_down, and the interval grows by 5 s.
            #expect(try Self.error(try await Self.poll(client, deviceCode: deviceCode, clientId: tv)) == "authorization_pending")
            clock.advance(2)
            let fast = try await Self.poll(client, deviceCode: deviceCode, clientId: tv)
            #expect(fast.status == .badRequest)
            #expect(try Self.error(fast) == "slow_down")
            clock.advance(6)  // 5 s would have done before; the interval is now 10 s
            #expect(try Self.error(try await Self.poll(client, deviceCode: deviceCode, clientId: tv)) == "slow_down")
            clock.advance(15)
            #expect(try Self.error(try await Self.poll(client, deviceCode: deviceCode, clientId: tv)) == "authorization_pending")

            // Signed out, /activate sends the person to sign in and back.
            let signedOut = try await client.execute(uri: "/activate?user_code=\(userCode)", method: .get)
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location]?.hasPrefix("/signin?return=/activate") == true)

            let cookie = try #require(try await WebAccountTests.webSignIn(client))
            let prefilled = try await client.execute(uri: "/activate?user_code=\(userCode)", method: .get, headers: [.cookie: cookie])
            #expect(String(buffer: prefilled.body).contains("value=\"\(userCode)\""))
            // Case and the dash do not matter; the page names the asking client and the account.
            let confirm = try await Self.activate(client, cookie: cookie, userCode: userCode.lowercased().replacingOccurrences(of: "-", with: ""))
            #expect(confirm.status == .ok)
            let confirmPage = String(buffer: confirm.body)
            #expect(confirmPage.contains("Living-room TV"))
            #expect(confirmPage.contains("ada@example.com"))
            #expect(try Self.error(try await Self.poll(client, deviceCode: deviceCode, clientId: tv)) == "slow_down")  // still pending, too soon
            let approved = try await Self.activate(client, cookie: cookie, userCode: userCode, decision: "approve")
            #expect(approved.status == .ok)
            #expect(String(buffer: approved.body).contains("is signed in"))

            // Approved: the tokens, once, whatever the polling speed.
            let tokens = try await Self.poll(client, deviceCode: deviceCode, clientId: tv)
            #expect(tokens.status == .ok)
            let access = try #require(try OAuthTests.json(tokens)["access_token"] as? String)
            let me = try await client.execute(uri: "/api/v1/account", method: .get, headers: [.authorization: "Bearer \(access)"])
            #expect(try OAuthTests.json(me)["email"] as? String == "ada@example.com")
            #expect(try Self.error(try await Self.poll(client, deviceCode: deviceCode, clientId: tv)) == "invalid_grant")
            // The user code worked once.
            #expect(try await Self.activate(client, cookie: cookie, userCode: userCode, decision: "approve").status == .badRequest)

            // The device code and the user code are stored hashed only.
            let stored = try #require(try await DeviceAuthorizationModel.query(on: runtime.database.db).first())
            #expect(stored.deviceCodeHash == OpaqueToken.hash(deviceCode))
            #expect(stored.userCodeHash != UserCode.normalize(userCode))
            #expect(!stored.userCodeHash.contains(UserCode.normalize(userCode)!))
        }
    }

    @Test(arguments: TestBackend.available)
    func concurrentPollsAfterApprovalGetTheTokensOnce(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: OAuthTests.prepareAccount) { client, runtime in
            let tv = try await Self.register(runtime)
            let body = try OAuthTests.json(try await Self.start(client, clientId: tv))
            let deviceCode = try #require(body["device_code"] as? String)
            let cookie = try #require(try await WebAccountTests.webSignIn(client))
            #expect(try await Self.activate(client, cookie: cookie, userCode: try #require(body["user_code"] as? String),
                                            decision: "approve").status == .ok)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 { group.addTask { try await Self.poll(client, deviceCode: deviceCode, clientId: tv).status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            let live = try await OAuthTokenModel.query(on: runtime.database.db).all().filter { $0.clientId == tv }.count
            #expect(live == 2)  // one access and one refresh token
        }
    }

    @Test(arguments: TestBackend.available)
    func deniedExpiredAndForeignRequestsAreRefused(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: OAuthTests.prepareAccount) { client, runtime in
            let tv = try await Self.register(runtime)
            let native = try await Self.register(runtime, kind: .native, name: "Phone", redirectURIs: ["com.example.app:/cb"])
            let notTV = try await Self.start(client, clientId: native)
            #expect(notTV.status == .badRequest)
            #expect(try Self.error(notTV) == "unauthorized_client")
            let unknown = try await Self.start(client, clientId: "made-up")
            #expect(unknown.status == .unauthorized)
            #expect(try Self.error(unknown) == "invalid_client")

            let cookie = try #require(try await WebAccountTests.webSignIn(client))
            let denied = try OAuthTests.json(try await Self.start(client, clientId: tv))
            let deniedCode = try #require(denied["device_code"] as? String)
            #expect(try await Self.activate(client, cookie: cookie, userCode: try #require(denied["user_code"] as? String),
                                            decision: "deny").status == .ok)
            #expect(try Self.error(try await Self.poll(client, deviceCode: deniedCode, clientId: tv)) == "access_denied")
            // The grant is the tv client's: another client presenting the code, or using the grant, is refused.
            #expect(try Self.error(try await Self.poll(client, deviceCode: deniedCode, clientId: native)) == "unauthorized_client")

            let late = try OAuthTests.json(try await Self.start(client, clientId: tv))
            let lateCode = try #require(late["device_code"] as? String)
            clock.advance(601)
            #expect(try Self.error(try await Self.poll(client, deviceCode: lateCode, clientId: tv)) == "expired_token")
            #expect(try await Self.activate(client, cookie: cookie, userCode: try #require(late["user_code"] as? String),
                                            decision: "approve").status == .badRequest)
            #expect(try Self.error(try await Self.poll(client, deviceCode: "sdc_forged", clientId: tv)) == "invalid_grant")
            // A day after they expired, the cleanup sweep removes the requests.
            let swept = try await Cleanup(database: runtime.database, now: { clock.now + Cleanup.tokenGrace + 1 }).run()
            #expect(swept.first { $0.name == "device authorizations" }?.removed == 2)
        }
    }

    @Test(arguments: TestBackend.available)
    func wrongUserCodesAreThrottledLikeSignIn(_ backend: TestBackend) async throws {
        let clock = TestClock(Date())
        try await ServerFixture.withRuntime(backend, now: { clock.now }, prepare: OAuthTests.prepareAccount) { client, runtime in
            let tv = try await Self.register(runtime)
            let body = try OAuthTests.json(try await Self.start(client, clientId: tv))
            let userCode = try #require(body["user_code"] as? String)
            let cookie = try #require(try await WebAccountTests.webSignIn(client))
            for _ in 0..<5 {
                #expect(try await Self.activate(client, cookie: cookie, userCode: "BBBB-BBBB").status == .badRequest)
            }
            let throttled = try await Self.activate(client, cookie: cookie, userCode: "BBBB-BBBB")
            #expect(throttled.status == .tooManyRequests)
            // One second, rounded up: the stored time of the last failure may round a fraction later
            // than the clock (SQLite and PostgreSQL round dates differently), which makes it 2.
            #expect(["1", "2"].contains(throttled.headers[.retryAfter] ?? ""))
            // Over the limit even the right code waits; after the wait it works and the count is forgotten.
            #expect(try await Self.activate(client, cookie: cookie, userCode: userCode).status == .tooManyRequests)
            clock.advance(1)
            #expect(try await Self.activate(client, cookie: cookie, userCode: userCode).status == .ok)
            #expect(try await Self.activate(client, cookie: cookie, userCode: "BBBB-BBBB").status == .badRequest)
        }
    }

    @Test func metadataNamesTheDeviceEndpointAndGrant() async throws {
        try await ServerFixture.with(.sqlite) { client in
            let metadata = try OAuthTests.json(try await client.execute(uri: "/.well-known/oauth-authorization-server", method: .get))
            #expect(metadata["device_authorization_endpoint"] as? String == "https://souk.test/oauth/device_authorization")
            #expect((metadata["grant_types_supported"] as? [String])?.contains(Self.grantType) == true)
        }
    }
}
