import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SoukCore

/// The Android Publisher API v3 calls Souk makes for one service account: read a one-time purchase
/// (`purchases.products.get`) or a subscription (`purchases.subscriptionsv2.get` — never the deprecated
/// v1 `subscriptions.get`), acknowledge, consume.
///
/// Status handling: 401 means the access token was refused — it is dropped and the call made once
/// more with a new one; a second 401, or a 403 (the service account has no access to the app in Play
/// Console), is a `.credentials` fault. 400/404/410 about a purchase are answers (`.rejected`). Timeouts,
/// 5xx and 429 are retried by `StoreHTTPClient`. Neither the purchase token nor the access token ever
/// appears in a fault.
public struct GooglePlayClient: Sendable {
    let baseURL: String
    let http: StoreHTTPClient
    let tokens: GoogleAccessTokens
    let account: GoogleServiceAccount

    public init(baseURL: String, http: StoreHTTPClient, tokens: GoogleAccessTokens, account: GoogleServiceAccount) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.http = http
        self.tokens = tokens
        self.account = account
    }

    public func productPurchase(package: String, productId: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleProductPurchase> {
        let url = applicationURL(package) + "/purchases/products/\(Self.escape(productId))/tokens/\(Self.escape(token))"
        return try await decode(call(.GET, url, label: "GET purchases.products"), label: "purchases.products")
    }

    public func subscriptionV2(package: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleSubscriptionPurchaseV2> {
        let url = applicationURL(package) + "/purchases/subscriptionsv2/tokens/\(Self.escape(token))"
        return try await decode(call(.GET, url, label: "GET purchases.subscriptionsv2"), label: "purchases.subscriptionsv2")
    }

    /// `purchases.products.acknowledge`.
    public func acknowledgeProduct(package: String, productId: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let url = applicationURL(package) + "/purchases/products/\(Self.escape(productId))/tokens/\(Self.escape(token)):acknowledge"
        return try done(await call(.POST, url, body: Array("{}".utf8), label: "POST purchases.products.acknowledge"))
    }

    /// `purchases.subscriptions.acknowledge` (the acknowledge method lives on the v1 resource; it is not deprecated).
    public func acknowledgeSubscription(package: String, subscriptionId: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let url = applicationURL(package) + "/purchases/subscriptions/\(Self.escape(subscriptionId))/tokens/\(Self.escape(token)):acknowledge"
        return try done(await call(.POST, url, body: Array("{}".utf8), label: "POST purchases.subscriptions.acknowledge"))
    }

    /// `purchases.products.consume`.
    public func consumeProduct(package: String, productId: String, token: String) async throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        let url = applicationURL(package) + "/purchases/products/\(Self.escape(productId))/tokens/\(Self.escape(token)):consume"
        return try done(await call(.POST, url, label: "POST purchases.products.consume"))
    }

    func applicationURL(_ package: String) -> String {
        baseURL + "/androidpublisher/v3/applications/\(Self.escape(package))"
    }

    func call(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil, label: String) async throws(StoreFault) -> StoreResponse {
        for attempt in 1...2 {
            let bearer = try await tokens.token(for: account)
            var headers = [("Authorization", "Bearer \(bearer)"), ("Accept", "application/json")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let response = try await http.send(method, url, headers: headers, body: body, label: label)
            switch response.status {
            case 401 where attempt == 1:
                await tokens.invalidate(account)
                continue
            case 401:
                throw StoreFault(.credentials, "\(label): Google refused the access token of \(account.clientEmail) (401).")
            case 403:
                let reason = Self.reason(response).map { ", \($0)" } ?? ""
                throw StoreFault(.credentials, "\(label): the service account \(account.clientEmail) may not read this app's purchases (403\(reason)); grant it access in Play Console.")
            default:
                return response
            }
        }
        throw StoreFault(.credentials, "\(label): Google refused the access token of \(account.clientEmail) (401).")
    }

    func decode<Value: Decodable & Sendable>(_ response: StoreResponse, label: String) throws(StoreFault) -> GoogleAnswer<Value> {
        switch response.status {
        case 200:
            do { return .found(try JSONDecoder().decode(Value.self, from: Data(response.body))) } catch {
                throw StoreFault(.unavailable, "Google answered \(label) with a body Souk cannot read.")
            }
        case 400, 404, 410:
            return .rejected(status: response.status, reason: Self.reason(response))
        default:
            throw StoreFault(.unavailable, "Google answered \(label) with an unexpected status \(response.status).")
        }
    }

    func done(_ response: StoreResponse) throws(StoreFault) -> GoogleAnswer<GoogleDone> {
        switch response.status {
        case 200...299: return .found(GoogleDone())
        case 400, 404, 409, 410: return .rejected(status: response.status, reason: Self.reason(response))
        default: throw StoreFault(.unavailable, "Google answered an unexpected status \(response.status).")
        }
    }

    struct ErrorBody: Decodable {
        struct Inner: Decodable {
            struct Item: Decodable { var reason: String? }
            var status: String?
            var errors: [Item]?
        }
        var error: Inner?
    }

    /// Google's machine-readable reason (`errors[0].reason`, else `status`), when it is a plain word.
    static func reason(_ response: StoreResponse) -> String? {
        guard let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)) else { return nil }
        return GoogleAccessTokens.safeCode(body.error?.errors?.first?.reason) ?? GoogleAccessTokens.safeCode(body.error?.status)
    }

    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
