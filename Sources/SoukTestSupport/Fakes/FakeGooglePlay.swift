import _CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Synchronization

/// A one-time purchase as the fake Play holds it (`ProductPurchase`).
public struct FakeGoogleProduct: Sendable, Equatable {
    public var productId: String
    public var orderId: String?
    /// 0 purchased, 1 cancelled, 2 pending.
    public var purchaseState: Int
    public var consumptionState: Int
    public var acknowledgementState: Int
    public var purchaseTime: Date
    /// 0 test, 1 promo, 2 rewarded; nil for an ordinary purchase (Google omits the field).
    public var purchaseType: Int?
    public var quantity: Int
    public var obfuscatedExternalAccountId: String?
    /// `purchases.productsv2`: the purchase option and offer the product was bought through.
    public var purchaseOptionId: String?
    public var offerId: String?
    /// How many of `quantity` may still be refunded (`refundableQuantity`).
    public var refundableQuantity: Int?

    public init(productId: String, orderId: String?, purchaseState: Int = 0, consumptionState: Int = 0, acknowledgementState: Int = 0,
                purchaseTime: Date, purchaseType: Int? = nil, quantity: Int = 1, obfuscatedExternalAccountId: String? = nil,
                purchaseOptionId: String? = nil, offerId: String? = nil) {
        self.purchaseOptionId = purchaseOptionId
        self.offerId = offerId
        self.productId = productId
        self.orderId = orderId
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.acknowledgementState = acknowledgementState
        self.purchaseTime = purchaseTime
        self.purchaseType = purchaseType
        self.quantity = quantity
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
    }

    var json: [String: any Sendable] {
        var json: [String: any Sendable] = [
            "kind": "androidpublisher#productPurchase", "productId": productId, "purchaseState": purchaseState,
            "consumptionState": consumptionState, "acknowledgementState": acknowledgementState,
            // int64 fields are JSON strings in Google's answers.
            "purchaseTimeMillis": String(Int64(purchaseTime.timeIntervalSince1970 * 1000)), "quantity": quantity, "regionCode": "DE",
        ]
        if let orderId { json["orderId"] = orderId }
        if let purchaseType { json["purchaseType"] = purchaseType }
        if let obfuscatedExternalAccountId { json["obfuscatedExternalAccountId"] = obfuscatedExternalAccountId }
        return json
    }
}

/// A subscription as the fake Play holds it (`SubscriptionPurchaseV2`, one line item).
public struct FakeGoogleSubscription: Sendable, Equatable {
    public var productId: String
    /// `SUBSCRIPTION_STATE_ACTIVE`, …
    public var state: String
    public var startTime: Date?
    public var expiryTime: Date
    /// The line item's `latestSuccessfulOrderId`.
    public var latestOrderId: String?
    /// nil: a prepaid plan (no `autoRenewingPlan`).
    public var autoRenewEnabled: Bool?
    public var testPurchase: Bool
    public var acknowledged: Bool
    public var linkedPurchaseToken: String?
    /// `freeTrial`, `introductoryPrice`, `basePrice`, `prorationPeriod` or nil (no `offerPhase`).
    public var offerPhase: String?
    public var offerTags: [String]
    public var deferredProductId: String?
    public var obfuscatedExternalAccountId: String?

    public init(productId: String, state: String = "SUBSCRIPTION_STATE_ACTIVE", startTime: Date?, expiryTime: Date, latestOrderId: String?,
                autoRenewEnabled: Bool? = true, testPurchase: Bool = false, acknowledged: Bool = false, linkedPurchaseToken: String? = nil,
                offerPhase: String? = nil, offerTags: [String] = [], deferredProductId: String? = nil, obfuscatedExternalAccountId: String? = nil) {
        self.productId = productId
        self.state = state
        self.startTime = startTime
        self.expiryTime = expiryTime
        self.latestOrderId = latestOrderId
        self.autoRenewEnabled = autoRenewEnabled
        self.testPurchase = testPurchase
        self.acknowledged = acknowledged
        self.linkedPurchaseToken = linkedPurchaseToken
        self.offerPhase = offerPhase
        self.offerTags = offerTags
        self.deferredProductId = deferredProductId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    var json: [String: any Sendable] {
        var item: [String: any Sendable] = ["productId": productId, "expiryTime": Self.time(expiryTime),
                                            "offerDetails": ["basePlanId": "monthly", "offerTags": offerTags] as [String: any Sendable]]
        if let autoRenewEnabled {
            item["autoRenewingPlan"] = ["autoRenewEnabled": autoRenewEnabled] as [String: any Sendable]
        } else {
            item["prepaidPlan"] = [String: any Sendable]()
        }
        if let latestOrderId { item["latestSuccessfulOrderId"] = latestOrderId }
        if let offerPhase { item["offerPhase"] = [offerPhase: [String: any Sendable]()] as [String: any Sendable] }
        if let deferredProductId { item["deferredItemReplacement"] = ["productId": deferredProductId] as [String: any Sendable] }
        var json: [String: any Sendable] = [
            "kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "DE", "subscriptionState": state, "lineItems": [item],
            "acknowledgementState": acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING",
        ]
        if let startTime { json["startTime"] = Self.time(startTime) }
        if let latestOrderId { json["latestOrderId"] = latestOrderId }
        if testPurchase { json["testPurchase"] = [String: any Sendable]() }
        if let linkedPurchaseToken { json["linkedPurchaseToken"] = linkedPurchaseToken }
        if let obfuscatedExternalAccountId {
            json["externalAccountIdentifiers"] = ["obfuscatedExternalAccountId": obfuscatedExternalAccountId] as [String: any Sendable]
        }
        return json
    }
}

/// An in-memory Google Play for one package: the OAuth token endpoint of the JWT bearer grant, the
/// Android Publisher v3 purchase endpoints, and Google's OIDC keys for push tokens.
///
/// - `POST /token` checks `grant_type`, the assertion's RS256 signature with the public key of a
///   service account it generated (`makeServiceAccount`), `iss`, `aud` (the URL it was reached at),
///   the androidpublisher `scope` and a lifetime of at most an hour, and issues an opaque access
///   token valid `tokenLifetime` seconds; it answers `400 invalid_grant` otherwise, as Google does.
/// - The purchase endpoints require a bearer token it issued and has not revoked (401 otherwise),
///   answer 403 for a service account denied access or another package, 404 for an unknown token,
///   400 `purchaseTokenDoesNotMatchProductId` for a product token asked with another product id.
///   acknowledge/consume change the state; doing it twice answers 400 (the verifier treats that
///   as done after reading the purchase again).
/// - `GET /oauth2/v3/certs` is a JWKS of the key `pushToken(…)` signs with.
public final class FakeGooglePlay: Sendable {
    public static let scope = "https://www.googleapis.com/auth/androidpublisher"

    public let packageName: String
    let now: @Sendable () -> Date
    let pushKey: JWTKit.Insecure.RSA.PrivateKey
    let otherKey: JWTKit.Insecure.RSA.PrivateKey
    public let pushKeyId = "fake-google-oidc-1"

    struct Account {
        var keyId: String
        var publicKey: JWTKit.Insecure.RSA.PublicKey
        var disabled = false
        var denied = false
    }

    struct State {
        var accounts: [String: Account] = [:]
        var issued: [String: (email: String, expires: Date)] = [:]
        var products: [String: FakeGoogleProduct] = [:]
        var subscriptions: [String: FakeGoogleSubscription] = [:]
        var tokenLifetime = 3599
        var tokensIssued = 0
        var rateLimited: [Int] = []
        var refuseAllTokens = false
        /// `purchases.voidedpurchases.list`: what Google voided, in the order it happened.
        var voided: [FakeGoogleVoided] = []
        var voidedPageSize = 1000
        /// Page tokens handed out: token → (offset, startTime it belongs to).
        var pageTokens: [String: (offset: Int, start: Int64)] = [:]
        /// false: `purchases.productsv2` answers 404, as for an app Google does not serve v2 for.
        var productsV2 = true
        var revocations: [String] = []
        /// Orders refunded through `orders.refund`; with `deferVoids`, what waits for `settleRefunds()`.
        var refundedOrders: Set<String> = []
        var deferVoids = false
        var deferred: [String] = []
    }

    let state = Mutex(State())

    public init(packageName: String, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.packageName = packageName
        self.now = now
        pushKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        otherKey = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    // MARK: Service accounts and tokens

    /// A new service account known to the fake: its key file's JSON (PKCS#8 PEM private key, as Google issues).
    public func makeServiceAccount(email: String = "souk-verifier@example-project.iam.gserviceaccount.com",
                                   tokenURI: String = "https://oauth2.googleapis.com/token") throws -> String {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyId = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let publicKey = try JWTKit.Insecure.RSA.PublicKey(pem: key.publicKey.pemRepresentation)
        state.withLock { $0.accounts[email] = Account(keyId: keyId, publicKey: publicKey) }
        let file: [String: String] = [
            "type": "service_account", "project_id": "example-project", "private_key_id": keyId,
            "private_key": key.pkcs8PEMRepresentation, "client_email": email, "client_id": "100000000000000000000",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        let data = try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes a new service account's key file into `folder`; returns its path.
    public func writeServiceAccount(into folder: String, email: String = "souk-verifier@example-project.iam.gserviceaccount.com",
                                    tokenURI: String = "https://oauth2.googleapis.com/token") throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("google-service-account-\(UUID().uuidString).json")
        try makeServiceAccount(email: email, tokenURI: tokenURI).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The token endpoint refuses the account (`invalid_grant`), as for a deleted key or disabled account.
    public func disable(account email: String) { state.withLock { $0.accounts[email]?.disabled = true } }
    /// The account gets tokens but may not read the app's purchases (403), as before Play Console grants access.
    public func deny(account email: String) { state.withLock { $0.accounts[email]?.denied = true } }
    /// Every access token issued so far is refused (401) from now on.
    public func revokeIssuedTokens() { state.withLock { $0.issued = [:] } }
    /// Every access token, old or new, is refused (401), as when the account's API access is broken.
    public func refuseAllTokens() { state.withLock { $0.refuseAllTokens = true } }
    /// `expires_in` of the next tokens.
    public func setTokenLifetime(_ seconds: Int) { state.withLock { $0.tokenLifetime = seconds } }
    public var tokensIssued: Int { state.withLock { $0.tokensIssued } }
    /// The next `count` purchase requests answer 429 with `Retry-After: retryAfter` (Google's quota answer).
    public func rateLimitNext(_ count: Int, retryAfter seconds: Int) {
        state.withLock { $0.rateLimited += Array(repeating: seconds, count: count) }
    }

    // MARK: Purchases

    public func addProduct(token: String, _ product: FakeGoogleProduct) { state.withLock { $0.products[token] = product } }
    public func setProduct(token: String, _ change: (inout FakeGoogleProduct) -> Void) {
        state.withLock { state in
            guard var product = state.products[token] else { return }
            change(&product)
            state.products[token] = product
        }
    }
    public func product(token: String) -> FakeGoogleProduct? { state.withLock { $0.products[token] } }

    public func addSubscription(token: String, _ subscription: FakeGoogleSubscription) {
        state.withLock { $0.subscriptions[token] = subscription }
    }
    public func setSubscription(token: String, _ change: (inout FakeGoogleSubscription) -> Void) {
        state.withLock { state in
            guard var subscription = state.subscriptions[token] else { return }
            change(&subscription)
            state.subscriptions[token] = subscription
        }
    }
    public func subscription(token: String) -> FakeGoogleSubscription? { state.withLock { $0.subscriptions[token] } }

    // MARK: Push tokens (OIDC)

    struct PushClaims: JWTPayload {
        var iss: String
        var aud: String
        var azp: String
        var sub: String
        var email: String
        var email_verified: Bool
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An OIDC token as Pub/Sub attaches to a push, signed with the key the fake's JWKS publishes (or, with
    /// `foreignKey`, with a key it does not publish under the same kid).
    public func pushToken(audience: String, email: String, emailVerified: Bool = true, issuer: String = "https://accounts.google.com",
                          issuedAt: Date? = nil, lifetime: TimeInterval = 3600, foreignKey: Bool = false) async throws -> String {
        let iat = Int((issuedAt ?? now()).timeIntervalSince1970)
        let keys = JWTKeyCollection()
        await keys.add(rsa: foreignKey ? otherKey : pushKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: pushKeyId))
        return try await keys.sign(PushClaims(iss: issuer, aud: audience, azp: "1234567890", sub: "1234567890", email: email,
                                              email_verified: emailVerified, iat: iat, exp: iat + Int(lifetime)),
                                   kid: JWKIdentifier(string: pushKeyId))
    }

    /// Google's JWKS document for the push key.
    public func jwks() throws -> String {
        let (modulus, exponent) = try pushKey.publicKey.getKeyPrimitives()
        let key: [String: String] = ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": pushKeyId,
                                     "n": Self.base64URL(modulus), "e": Self.base64URL(exponent)]
        let data = try JSONSerialization.data(withJSONObject: ["keys": [key]], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    // MARK: Routes

    public func routes(_ router: Router<BasicRequestContext>) {
        router.post("/token") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            return await self.grant(form: String(buffer: body), authority: request.head.authority ?? "")
        }
        router.get("/oauth2/v3/certs") { _, _ in
            var response = FakeStoreServer.json(.ok, (try? self.jwks()) ?? "{}")
            response.headers[.cacheControl] = "public, max-age=19008, must-revalidate, no-transform"
            return response
        }
        let app = "/androidpublisher/v3/applications/:package/purchases"
        router.get("\(app)/products/:product/tokens/:token") { request, context in
            self.purchases(request, context) { state, token in
                self.readProduct(&state, productId: context.parameters.get("product") ?? "", token: token)
            }
        }
        router.post("\(app)/products/:product/tokens/:token") { request, context in
            self.purchases(request, context) { state, tokenAndAction in
                self.changeProduct(&state, productId: context.parameters.get("product") ?? "", tokenAndAction: tokenAndAction)
            }
        }
        router.get("\(app)/subscriptionsv2/tokens/:token") { request, context in
            self.purchases(request, context) { state, token in
                guard let subscription = state.subscriptions[token] else { return Self.error(404, "notFound") }
                return FakeStoreServer.json(object: subscription.json)
            }
        }
        orderRoutes(router)
        router.post("\(app)/subscriptions/:subscription/tokens/:token") { request, context in
            self.purchases(request, context) { state, tokenAndAction in
                guard let (token, action) = Self.split(tokenAndAction), action == "acknowledge" else { return Self.error(404, "notFound") }
                guard var subscription = state.subscriptions[token] else { return Self.error(404, "notFound") }
                guard subscription.productId == (context.parameters.get("subscription") ?? "").removingPercentEncoding else {
                    return Self.error(400, "purchaseTokenDoesNotMatchSubscriptionId")
                }
                guard !subscription.acknowledged, subscription.state != "SUBSCRIPTION_STATE_PENDING" else {
                    return Self.error(400, "invalidPurchaseState")
                }
                subscription.acknowledged = true
                state.subscriptions[token] = subscription
                return Response(status: .noContent)
            }
        }
    }

    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int
        var exp: Int
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    func grant(form: String, authority: String) async -> Response {
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        func refuse(_ error: String, _ description: String) -> Response {
            FakeStoreServer.json(.badRequest, object: ["error": error, "error_description": description])
        }
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return refuse("unsupported_grant_type", "Invalid grant_type: \(fields["grant_type"] ?? "")")
        }
        guard let assertion = fields["assertion"] else { return refuse("invalid_request", "Missing required parameter: assertion") }
        let accounts = state.withLock { $0.accounts }
        let keys = JWTKeyCollection()
        for account in accounts.values {
            await keys.add(rsa: account.publicKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: account.keyId))
        }
        guard let claims = try? await keys.verify(assertion, as: Assertion.self) else {
            return refuse("invalid_grant", "Invalid JWT Signature.")
        }
        guard let account = accounts[claims.iss] else { return refuse("invalid_grant", "Invalid grant: account not found") }
        guard !account.disabled else { return refuse("invalid_grant", "Invalid grant: account not found") }
        guard claims.aud == "http://\(authority)/token" else { return refuse("invalid_grant", "Invalid JWT: audience") }
        guard claims.scope.split(separator: " ").contains(Substring(Self.scope)) else { return refuse("invalid_scope", "Invalid OAuth scope.") }
        let now = Int(now().timeIntervalSince1970)
        guard claims.exp - claims.iat <= 3600, claims.exp > now, claims.iat <= now + 60 else {
            return refuse("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        let token = "ya29.fake-" + UUID().uuidString
        let lifetime = state.withLock { state in
            state.tokensIssued += 1
            state.issued[token] = (claims.iss, self.now().addingTimeInterval(TimeInterval(state.tokenLifetime)))
            return state.tokenLifetime
        }
        return FakeStoreServer.json(object: ["access_token": token, "expires_in": lifetime, "token_type": "Bearer"])
    }

    /// Bearer and package checks shared by the purchase endpoints; `answer` gets the decoded token.
    func purchases(_ request: Request, _ context: BasicRequestContext, _ answer: (inout State, String) -> Response) -> Response {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
        let package = context.parameters.get("package") ?? ""
        let rawToken = context.parameters.get("token") ?? ""
        return state.withLock { state in
            if !state.rateLimited.isEmpty {
                var response = Self.error(429, "rateLimitExceeded", status: "RESOURCE_EXHAUSTED")
                response.headers[.retryAfter] = String(state.rateLimited.removeFirst())
                return response
            }
            guard !state.refuseAllTokens, let issued = state.issued[bearer], issued.expires > now() else {
                return Self.error(401, "authError", status: "UNAUTHENTICATED")
            }
            guard state.accounts[issued.email]?.denied != true, package.removingPercentEncoding == packageName else {
                return Self.error(403, "permissionDenied", status: "PERMISSION_DENIED")
            }
            // A `:acknowledge`/`:consume` suffix stays literal; only the token itself was percent-encoded.
            let token: String
            if let (encoded, action) = Self.split(rawToken) {
                token = (encoded.removingPercentEncoding ?? encoded) + ":" + action
            } else {
                token = rawToken.removingPercentEncoding ?? rawToken
            }
            return answer(&state, token)
        }
    }

    func readProduct(_ state: inout State, productId: String, token: String) -> Response {
        guard let product = state.products[token] else { return Self.error(404, "notFound") }
        guard product.productId == (productId.removingPercentEncoding ?? productId) else {
            return Self.error(400, "purchaseTokenDoesNotMatchProductId")
        }
        return FakeStoreServer.json(object: product.json)
    }

    func changeProduct(_ state: inout State, productId: String, tokenAndAction: String) -> Response {
        guard let (token, action) = Self.split(tokenAndAction) else { return Self.error(404, "notFound") }
        guard var product = state.products[token] else { return Self.error(404, "notFound") }
        guard product.productId == (productId.removingPercentEncoding ?? productId) else {
            return Self.error(400, "purchaseTokenDoesNotMatchProductId")
        }
        switch action {
        case "acknowledge":
            guard product.acknowledgementState == 0, product.purchaseState == 0 else { return Self.error(400, "invalidPurchaseState") }
            product.acknowledgementState = 1
        case "consume":
            guard product.consumptionState == 0, product.purchaseState == 0 else { return Self.error(400, "invalidPurchaseState") }
            product.consumptionState = 1
        default:
            return Self.error(404, "notFound")
        }
        state.products[token] = product
        return Response(status: .noContent)
    }

    static func split(_ tokenAndAction: String) -> (String, String)? {
        guard let colon = tokenAndAction.lastIndex(of: ":") else { return nil }
        return (String(tokenAndAction[..<colon]), String(tokenAndAction[tokenAndAction.index(after: colon)...]))
    }

    /// Google's error body (`{"error": {"code", "message", "status", "errors": [{"reason"}]}}`).
    static func error(_ code: Int, _ reason: String, status: String? = nil) -> Response {
        let statusName = status ?? (code == 404 ? "NOT_FOUND" : code == 400 ? "INVALID_ARGUMENT" : "FAILED_PRECONDITION")
        let body: [String: any Sendable] = ["error": ["code": code, "message": "fake Google Play: \(reason)", "status": statusName,
                                                       "errors": [["reason": reason, "domain": "androidpublisher"]]] as [String: any Sendable]]
        return FakeStoreServer.json(.init(code: code), object: body)
    }
}
