import Crypto
import Foundation
import JWTKit
import SoukCore
import X509
import _CryptoExtras

/// `souk-device conform`: a checklist any marketplace server can be run against, built only on
/// the documented protocol (spec sections named per check). Accounts and test apps come from flags.
public final class Conformance: @unchecked Sendable {
    public struct Result: Sendable {
        public var section: String
        public var name: String
        /// nil: passed; otherwise why it failed (or was skipped, with `skipped`).
        public var problem: String?
        public var skipped = false
    }

    public struct Options: Sendable {
        public var base: String
        public var publicApp: UInt64?
        public var gatedApp: UInt64?
        public var email: String?
        public var password: String?
        public var platform = "iOS"
        public var osVersion = "18.0"

        public init(base: String) {
            self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        }
    }

    let http: DeviceHTTP
    let options: Options
    public private(set) var results: [Result] = []
    private var restoreEndpoint: String?

    public init(http: DeviceHTTP, options: Options) {
        self.http = http
        self.options = options
    }

    struct Failed: Error {
        var reason: String
    }

    /// A value an earlier check or a flag provides; its absence fails the check (never a crash).
    func need<T>(_ value: T?) throws -> T {
        guard let value else { throw Failed(reason: "an earlier check or a flag did not provide what this check needs") }
        return value
    }

    func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
        if !condition { throw Failed(reason: reason()) }
    }

    func check(_ section: String, _ name: String, skipIf skip: String? = nil, _ work: () async throws -> Void) async {
        if let skip {
            results.append(Result(section: section, name: name, problem: skip, skipped: true))
            return
        }
        do {
            try await work()
            results.append(Result(section: section, name: name, problem: nil))
        } catch let failed as Failed {
            results.append(Result(section: section, name: name, problem: failed.reason))
        } catch {
            results.append(Result(section: section, name: name, problem: "\(error)"))
        }
    }

    func json(_ answer: DeviceHTTP.Answer) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] else {
            throw Failed(reason: "status \(answer.status), body is not a JSON object")
        }
        return object
    }

    func appsBody(_ apps: [(UInt64, UInt64)]) -> [UInt8] {
        Device.appsBody(apps.map { ($0.0, $0.1) }, platform: options.platform, osVersion: options.osVersion)
    }

    func post(_ url: String, _ body: [UInt8], bearer: String? = nil, form: Bool = false) async throws -> DeviceHTTP.Answer {
        var headers = [("Content-Type", form ? "application/x-www-form-urlencoded" : "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return try await http.send(.POST, url, headers: headers, body: body)
    }

    /// Runs every check; true when all that ran passed.
    public func run() async -> Bool {
        let base = options.base
        var endpoints: MarketplaceEndpoints?
        var metadata: MarketplaceClient.OAuthMetadata?
        var metadataObject: [String: Any] = [:]
        var accessToken: String?
        var restoredItem: [String: Any]?

        await check("§1", "configuration file: 200 JSON, no redirect") {
            let answer = try await http.send(.GET, base + "/.well-known/marketplace-kit")
            try require(answer.status == 200, "status \(answer.status)\((300..<400).contains(answer.status) ? " (a redirect: iOS does not follow it)" : "")")
            try require(answer.header("content-type")?.hasPrefix("application/json") == true, "Content-Type is \(answer.header("content-type") ?? "missing")")
            endpoints = try MarketplaceClient.endpoints(try json(answer), source: "configuration")
            restoreEndpoint = endpoints?.restore
        }
        await check("§1", "pollingInterval in hours, at least 24", skipIf: endpoints == nil ? "no configuration" : nil) {
            let hours = try need(endpoints).pollingInterval
            try require(hours >= 24, "pollingInterval is \(hours)")
        }
        await check("§1", "overrides are full copies", skipIf: endpoints == nil ? "no configuration" : nil) {
            let object = try json(try await http.send(.GET, base + "/.well-known/marketplace-kit"))
            for (id, value) in (object["overridesByAppleItemID"] as? [String: Any]) ?? [:] {
                try require(AppleID.parse(id) != nil, "override key \(id) is not an AppleItemID")
                _ = try MarketplaceClient.endpoints(value as? [String: Any] ?? [:], source: "override \(id)")
            }
        }
        await check("§2.1", "OAuth metadata with S256 and the three grants") {
            let answer = try await http.send(.GET, base + "/.well-known/oauth-authorization-server")
            try require(answer.status == 200, "status \(answer.status)")
            metadataObject = try json(answer)
            metadata = try await MarketplaceClient.oauthMetadata(http, origin: base)
            let methods = metadataObject["code_challenge_methods_supported"] as? [String] ?? []
            try require(methods.contains("S256"), "code_challenge_methods_supported is \(methods)")
            let grants = Set(metadataObject["grant_types_supported"] as? [String] ?? [])
            let needed: Set = ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"]
            try require(needed.isSubset(of: grants), "grant_types_supported lacks \(needed.subtracting(grants).sorted())")
        }
        await check("§2.3", "token endpoint: a bad code is invalid_grant", skipIf: metadata == nil ? "no OAuth metadata" : nil) {
            let answer = try await post(need(metadata).tokenEndpoint, MarketplaceClient.form([("grant_type", "authorization_code"), ("code", "not-a-code"),
                                                                                       ("code_verifier", String(repeating: "a", count: 43)), ("client_id", "conform")]), form: true)
            try require(answer.status == 400 && (try json(answer)["error"] as? String) == "invalid_grant", "status \(answer.status): \(answer.text.prefix(120))")
        }
        await check("§2.3", "token endpoint: an unknown grant type is unsupported_grant_type", skipIf: metadata == nil ? "no OAuth metadata" : nil) {
            let answer = try await post(need(metadata).tokenEndpoint, MarketplaceClient.form([("grant_type", "password"), ("client_id", "conform")]), form: true)
            try require(answer.status == 400 && (try json(answer)["error"] as? String) == "unsupported_grant_type", "status \(answer.status): \(answer.text.prefix(120))")
        }
        await check("§2.2", "token exchange: a bad subject token is invalid_grant", skipIf: metadata == nil ? "no OAuth metadata" : nil) {
            let answer = try await post(need(metadata).tokenEndpoint, MarketplaceClient.form([
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", "nope"),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("client_id", "conform")]), form: true)
            try require(answer.status == 400 && (try json(answer)["error"] as? String) == "invalid_grant", "status \(answer.status): \(answer.text.prefix(120))")
        }
        await check("§2.3", "login flow: authorize (S256, state, login_hint), sign in, exchange the code",
                    skipIf: metadata == nil ? "no OAuth metadata" : options.email == nil || options.password == nil ? "needs --email and --password" : nil) {
            let tokens = try await MarketplaceClient.signIn(http, metadata: need(metadata), clientId: UUID().uuidString, email: need(options.email), password: need(options.password))
            accessToken = tokens.accessToken
        }
        await check("§2.3", "authorization endpoint refuses another redirect_uri", skipIf: metadata == nil ? "no OAuth metadata" : nil) {
            let answer = try await http.send(.GET, need(metadata).authorizationEndpoint + "?client_id=conform&response_type=code&redirect_uri=https%3A%2F%2Fevil.example%2F&code_challenge=\(String(repeating: "a", count: 43))&code_challenge_method=S256&state=s")
            try require(!(answer.header("location")?.hasPrefix("https://evil.example") ?? false), "redirected to the foreign redirect_uri")
            try require(answer.status >= 400, "status \(answer.status)")
        }
        await check("§6", "restore: a public app gets a package, a token and a share URL",
                    skipIf: endpoints == nil ? "no configuration" : options.publicApp == nil ? "needs --public-app" : nil) {
            let answer = try await post(need(endpoints).restore, appsBody([(need(options.publicApp), 0)]))
            try require(answer.status == 200, "status \(answer.status)")
            let item = (try json(answer)["restores"] as? [[String: Any]])?.first
            try require(item != nil, "no restores item")
            for key in ["appleItemId", "appleVersionId", "alternativeDistributionPackage", "installVerificationToken", "appShareURL"] {
                try require(item?[key] is String, "\(key) is missing or not a string")
            }
            restoredItem = item
        }
        await check("§4", "install verification token: ES256, kid, audience, bundle id, lifetime, fresh nonce",
                    skipIf: restoredItem == nil ? "no restored item" : nil) {
            try await checkToken(need(restoredItem), metadata: metadata)
        }
        await check("§6", "an unknown app is a 404 failure keeping its appleVersionId", skipIf: endpoints == nil ? "no configuration" : nil) {
            let answer = try await post(need(endpoints).restore, appsBody([(18_446_744_073_709_551_557, 123)]))
            try require(answer.status == 200, "status \(answer.status)")
            let failure = (try json(answer)["failures"] as? [[String: Any]])?.first
            try require((failure?["failure"] as? [String: Any])?["code"] as? Int == 404, "no 404 failure")
            try require("\(failure?["appleVersionId"] ?? "")" == "123", "appleVersionId not kept")
        }
        await check("§6", "updates: version \"0\" gets the latest with bundleVersion and shortVersionString",
                    skipIf: endpoints == nil ? "no configuration" : options.publicApp == nil ? "needs --public-app" : nil) {
            let answer = try await post(need(endpoints).updatesURL, appsBody([(need(options.publicApp), 0)]))
            try require(answer.status == 200, "status \(answer.status)")
            let item = (try json(answer)["updates"] as? [[String: Any]])?.first
            try require(item?["bundleVersion"] is String && item?["shortVersionString"] is String, "no update item with versions")
        }
        await check("§6", "a gated app: 401 without a token (WWW-Authenticate), 403 with a bad one",
                    skipIf: endpoints == nil ? "no configuration" : options.gatedApp == nil ? "needs --gated-app" : nil) {
            let anonymous = try await post(need(endpoints).restore, appsBody([(need(options.gatedApp), 0)]))
            try require(anonymous.status == 401, "without a token: \(anonymous.status)")
            try require(anonymous.header("www-authenticate")?.lowercased().hasPrefix("bearer") == true, "no WWW-Authenticate: Bearer")
            let forged = try await post(need(endpoints).restore, appsBody([(need(options.gatedApp), 0)]), bearer: "forged-token")
            try require(forged.status == 403, "with a bad token: \(forged.status)")
        }
        await check("§6", "a gated app with the signed-in token is restored",
                    skipIf: endpoints == nil ? "no configuration" : options.gatedApp == nil ? "needs --gated-app" : accessToken == nil ? "no sign-in" : nil) {
            let answer = try await post(need(endpoints).restore, appsBody([(need(options.gatedApp), 0)]), bearer: accessToken)
            try require(answer.status == 200, "status \(answer.status)")
        }
        await check("§6", "malformed bodies are 4xx, never 5xx", skipIf: endpoints == nil ? "no configuration" : nil) {
            for body in ["not json", "{}", #"{"apps": "x", "platform": "iOS", "osVersion": "17.4"}"#] {
                let answer = try await post(need(endpoints).updatesURL, Array(body.utf8))
                try require((400..<500).contains(answer.status), "\(body) → \(answer.status)")
            }
        }
        await check("§5", "package hosting: manifest, HEAD, Range, ETag", skipIf: restoredItem == nil ? "no restored item" : nil) {
            try await checkPackage(need(need(restoredItem)["alternativeDistributionPackage"] as? String))
        }
        await check("§3.4", "certificates: DER at the configuration's URLs, RSA-3072 for encryption", skipIf: endpoints == nil ? "no configuration" : nil) {
            let encryption = try await http.send(.GET, need(endpoints).encryptionCertificateURL)
            let certificate = try Certificate(derEncoded: encryption.body)
            let key = try _RSA.Encryption.PublicKey(derRepresentation: Array(certificate.publicKey.subjectPublicKeyInfoBytes))
            try require(key.keySizeInBits == 3072, "the encryption key has \(key.keySizeInBits) bits")
            _ = try Certificate(derEncoded: try await http.send(.GET, need(endpoints).signingCertificateURL).body)
        }
        await check("§3.1", "license endpoint: a garbage envelope is a 400", skipIf: endpoints == nil ? "no configuration" : nil) {
            let answer = try await post(need(endpoints).dynamicLicenseURL, Array(#"{"licenseRequest": "AAAA", "licenseKey": "AAAA", "appsById": {"1": {}}}"#.utf8))
            try require(answer.status == 400, "status \(answer.status)")
        }
        await check("§3.2", "renewal endpoint: a garbage envelope is a 400", skipIf: endpoints == nil ? "no configuration" : nil) {
            let answer = try await post(need(endpoints).licenseRenewalURL, Array(#"{"renewalRequest": "AAAA", "licenseKey": "AAAA"}"#.utf8))
            try require(answer.status == 400, "status \(answer.status)")
        }
        return results.allSatisfy { $0.problem == nil || $0.skipped }
    }

    func checkToken(_ item: [String: Any], metadata: MarketplaceClient.OAuthMetadata?) async throws {
        let package = try need(item["alternativeDistributionPackage"] as? String)
        let manifestAnswer = try await http.send(.GET, (package.hasSuffix("/") ? package : package + "/") + "manifest.json")
        guard case .success(let manifest) = PackageManifest.parse(Data(manifestAnswer.body)) else { throw Failed(reason: "the package's manifest does not parse") }
        let jwks = try await http.send(.GET, metadata?.jwksURI ?? options.base + "/.well-known/jwks.json")
        let token = try need(item["installVerificationToken"] as? String)
        guard let claims = await VerificationClaims.verified(token, jwks: jwks.text) else {
            throw Failed(reason: "the signature does not verify against the JWKS")
        }
        let problems = claims.problems(token: token, manifest: manifest)
        try require(problems.isEmpty, problems.joined(separator: "; "))
        // A second restore must carry a new nonce.
        guard let restore = restoreEndpoint, let appleItemId = UInt64(item["appleItemId"] as? String ?? "") else {
            throw Failed(reason: "no restore endpoint or item id")
        }
        let again = try json(try await post(restore, appsBody([(appleItemId, 0)])))
        let second = ((again["restores"] as? [[String: Any]])?.first?["installVerificationToken"] as? String) ?? ""
        guard let secondClaims = await VerificationClaims.verified(second, jwks: jwks.text) else {
            throw Failed(reason: "the second token does not verify")
        }
        try require(secondClaims.nonce != claims.nonce, "the nonce was reused")
    }

    func checkPackage(_ package: String) async throws {
        let base = package.hasSuffix("/") ? package : package + "/"
        let manifestAnswer = try await http.send(.GET, base + "manifest.json")
        try require(manifestAnswer.status == 200, "manifest status \(manifestAnswer.status)")
        guard case .success(let manifest) = PackageManifest.parse(Data(manifestAnswer.body)), let variant = manifest.variants.first else {
            throw Failed(reason: "the manifest does not parse")
        }
        let url = base + variant.assetPath
        let head = try await http.send(.HEAD, url)
        try require(head.status == 200 && head.body.isEmpty && head.header("content-length") != nil, "HEAD: status \(head.status)")
        let range = try await http.send(.GET, url, headers: [("Range", "bytes=0-99")])
        try require(range.status == 206 && range.body.count == 100 && range.header("content-range")?.hasPrefix("bytes 0-99/") == true,
                    "Range: status \(range.status), \(range.body.count) bytes")
        guard let etag = head.header("etag") else { throw Failed(reason: "no ETag") }
        let conditional = try await http.send(.GET, url, headers: [("If-None-Match", etag)])
        try require(conditional.status == 304, "If-None-Match: status \(conditional.status)")
    }

    /// The pass/fail table.
    public var table: String {
        let width = max(10, results.map(\.name.count).max() ?? 10)
        return results.map { result in
            let mark = result.skipped ? "SKIP" : result.problem == nil ? "PASS" : "FAIL"
            let name = result.name.padding(toLength: width, withPad: " ", startingAt: 0)
            return "\(mark)  \(result.section.padding(toLength: 6, withPad: " ", startingAt: 0)) \(name)\(result.problem.map { "  — \($0)" } ?? "")"
        }.joined(separator: "\n")
    }
}
