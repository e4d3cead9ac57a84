import Foundation
import SoukCore

/// The marketplace's own app on the device: its catalog from the JSON API (docs/api.md), and an
/// install the way the app starts one — MarketplaceKit's `InstallMetadata` from
/// `POST /api/v1/apps/<id>/install`, then what iOS does with it (license, restore, download).
extension Device {
    /// One app of a list, as `browse` prints it.
    public struct ListedApp: Sendable, Equatable {
        public var appleItemId: String
        public var name: String
        public var price: String
        /// What this person may do (`install`, `buy`, …); nil without a token.
        public var action: String?
    }

    /// `GET /api/v1/apps` of `marketplace` (with `query`), every page, with the token this device
    /// holds for the marketplace's host when it has one.
    public func browse(marketplace: String, query: String?) async throws -> [ListedApp] {
        guard let origin = MarketplaceClient.origin(of: marketplace) else {
            throw DeviceError(.protocolViolation, "--marketplace must be an http(s) URL")
        }
        var components = URLComponents(string: origin + "/api/v1/apps")!
        if let query, !query.isEmpty { components.queryItems = [URLQueryItem(name: "query", value: query)] }
        var next: String? = components.string
        var apps: [ListedApp] = []
        let bearer = appToken(origin: origin)?.accessToken
        while let url = next {
            guard MarketplaceClient.origin(of: url) == origin else {
                throw DeviceError(.protocolViolation, "the list's next page \(url) is on another host")
            }
            let answer = try await http.send(.GET, url, headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? [])
            guard answer.status == 200 else { throw DeviceError(.protocolViolation, "GET \(url) answered \(answer.status)") }
            let object = try http.json(answer, "the app list")
            guard let page = object["apps"] as? [[String: Any]] else { throw DeviceError(.protocolViolation, "the app list has no apps array") }
            for app in page {
                apps.append(ListedApp(appleItemId: "\(app["appleItemId"] ?? "?")", name: app["name"] as? String ?? "?",
                                      price: (app["price"] as? [String: Any])?["label"] as? String ?? "?",
                                      action: (app["access"] as? [String: Any])?["action"] as? String))
            }
            next = object["next"] as? String
        }
        return apps
    }

    /// A token this device holds for `origin`'s host (of any account), if any.
    func appToken(origin: String) -> DeviceState.Tokens? {
        guard let domain = URLComponents(string: origin)?.host else { return nil }
        return state.tokens.sorted { $0.key < $1.key }.first { $0.key.hasPrefix(DeviceState.key(domain: domain, account: nil)) }?.value
    }

    /// Signs the marketplace app in (OAuth authorization code with PKCE, as iOS's own sign-in for
    /// the marketplace does) unless it holds a token for `email` already; the bearer.
    func signInApp(origin: String, email: String, password: String?) async throws -> String {
        guard let domain = URLComponents(string: origin)?.host else { throw DeviceError(.protocolViolation, "no host in \(origin)") }
        let key = DeviceState.key(domain: domain, account: email)
        if let held = state.tokens[key], held.expiresAt.map({ $0 > Date().addingTimeInterval(60) }) ?? true {
            return held.accessToken
        }
        guard let password else {
            throw DeviceError(.oauthTokenError, "Verification Required: give --password to sign in to \(domain) as \(email)")
        }
        let metadata = try await MarketplaceClient.oauthMetadata(http, origin: origin)
        let tokens = try await MarketplaceClient.signIn(http, metadata: metadata, clientId: state.clientId(domain: domain, account: email),
                                                        email: email, password: password)
        state.tokens[key] = tokens
        try save()
        output.say("Signed in to \(domain) as \(email).")
        return tokens.accessToken
    }

    /// What `POST …/install` refused, and the checkout it names when the app can be bought.
    public struct PaymentRequired: Error, Sendable {
        public var type: String
        public var detail: String
        public var purchaseURL: String?
        public var checkout: (url: String, body: [UInt8])?
    }

    /// Installs `appleItemId` from the marketplace app: sign-in, `InstallMetadata`, then the link
    /// install's steps (license, restore, download, both tokens checked) with the app's token. A
    /// `402` is bought first when `buy` is set (the app's checkout request), else thrown.
    public func installFromApp(appleItemId: UInt64, marketplace: String, email: String, password: String?,
                               buy: Bool) async throws -> DeviceState.InstalledApp {
        guard let origin = MarketplaceClient.origin(of: marketplace) else {
            throw DeviceError(.protocolViolation, "--marketplace must be an http(s) URL")
        }
        let bearer = try await signInApp(origin: origin, email: email, password: password)
        do {
            return try await installFromApp(appleItemId: appleItemId, origin: origin, account: email, bearer: bearer)
        } catch let refusal as PaymentRequired where buy {
            guard let checkout = refusal.checkout else {
                throw DeviceError(.appNotAvailable, "\(refusal.detail) (nothing to buy it with here)")
            }
            guard MarketplaceClient.origin(of: checkout.url) == origin else {
                throw DeviceError(.protocolViolation, "the checkout request names \(checkout.url), not \(origin)")
            }
            let answer = try await post(checkout.url, checkout.body, bearer: bearer)
            let object = (try? http.json(answer, "checkout")) ?? [:]
            guard answer.status == 201, let url = object["url"] as? String else {
                throw DeviceError(.appNotAvailable, "checkout answered \(answer.status): \(object["detail"] as? String ?? "no order")")
            }
            output.say("Checkout: order \(object["orderId"] as? String ?? "?"), \(url)")
            do {
                return try await installFromApp(appleItemId: appleItemId, origin: origin, account: email, bearer: bearer)
            } catch is PaymentRequired {
                // A processor that takes the person to a payment page: the app cannot pay for them.
                throw DeviceError(.appNotAvailable, "not paid yet: pay at \(url), then install again")
            }
        }
    }

    func installFromApp(appleItemId: UInt64, origin: String, account: String, bearer: String) async throws -> DeviceState.InstalledApp {
        let installed = state.installs.first { $0.appleItemId == appleItemId }
        var body: [String: Any] = ["platform": state.platform, "osVersion": state.osVersion]
        body["installedVersionId"] = installed.map { String($0.appleVersionId) } ?? NSNull()
        let answer = try await post(origin + "/api/v1/apps/\(appleItemId)/install", Array(try JSONSerialization.data(withJSONObject: body)), bearer: bearer)
        let object = (try? http.json(answer, "install")) ?? [:]
        switch answer.status {
        case 200: break
        case 402:
            let checkout = (object["checkout"] as? [String: Any]).flatMap { request -> (String, [UInt8])? in
                guard let url = request["url"] as? String, let fields = request["body"] as? [String: Any],
                      let data = try? JSONSerialization.data(withJSONObject: fields) else { return nil }
                return (url, Array(data))
            }
            throw PaymentRequired(type: object["type"] as? String ?? "", detail: object["detail"] as? String ?? "payment required",
                                  purchaseURL: object["purchaseURL"] as? String, checkout: checkout)
        case 401, 403: throw DeviceError(.oauthTokenError, "install answered \(answer.status): Verification Required")
        case 404: throw DeviceError(.appNotAvailable, "App Not Available: \(object["detail"] as? String ?? "no app \(appleItemId)")")
        case 409:
            let minimum = (object["minimumOS"] as? [String: Any])?["version"] as? String
            throw DeviceError(.minimumPlatformVersionNotSatisfied,
                              "\(object["detail"] as? String ?? "no version runs here")\(minimum.map { " (needs \(state.platform) \($0))" } ?? "")")
        default: throw DeviceError(.protocolViolation, "install answered \(answer.status)")
        }
        // MarketplaceKit's InstallMetadata, and the token confirmInstall returns.
        guard let package = object["alternativeDistributionPackage"] as? String, let token = object["installVerificationToken"] as? String,
              "\(object["appleItemId"] ?? "")" == String(appleItemId) else {
            throw DeviceError(.protocolViolation, "install answered no alternativeDistributionPackage, installVerificationToken or appleItemId \(appleItemId)")
        }
        guard MarketplaceClient.origin(of: package) == origin else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "install named a package on \(package), not on \(origin)")
        }
        output.say("InstallMetadata: account \(object["account"] ?? "?"), package \(package), isUpdate \(object["isUpdate"] ?? "?").")
        let link = Link(package: package, installVerificationToken: token, token: nil, account: account,
                        appShareURL: object["appShareURL"] as? String)
        return try await install(link: link)
    }
}
