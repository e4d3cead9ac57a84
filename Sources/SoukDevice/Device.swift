import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import SoukCore
import X509
import _CryptoExtras

/// The claims of an install verification token as the device checks them (spec §4).
struct VerificationClaims: JWTPayload {
    var iss: String
    var iat: Int64
    var exp: Int64
    var aud: String
    var bid: String
    var dtype: String
    var nonce: String
    var iid: String?
    var vid: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// Verifies `token`'s signature against a JWK set; nil when it does not verify.
    static func verified(_ token: String, jwks: String) async -> VerificationClaims? {
        let keys = JWTKeyCollection()
        guard (try? await keys.add(jwksJSON: jwks)) != nil else { return nil }
        return try? await keys.verify(token, as: VerificationClaims.self)
    }

    /// What spec §4 forbids in a verified token for `manifest` (empty: nothing): the header's `alg`
    /// and `kid`, the audience, the bundle, item and version ids, the lifetime and the `dtype`.
    /// Nonce freshness is the caller's to check.
    func problems(token: String, manifest: PackageManifest, now: Date = Date()) -> [String] {
        let header = token.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) }
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let now = Int64(now.timeIntervalSince1970)
        return [
            header?["alg"] as? String == "ES256" ? nil : "alg is not ES256",
            header?["kid"] is String ? nil : "the header has no kid",
            aud == "AppleDownloadVerification-v1" ? nil : "aud is \(aud)",
            bid == manifest.bundleId ? nil : "bid \(bid) is not the manifest's \(manifest.bundleId)",
            iid.map { $0 == String(manifest.appleItemId) } ?? true ? nil : "iid does not match the manifest",
            vid.map { $0 == String(manifest.appleVersionId) } ?? true ? nil : "vid does not match the manifest",
            exp > now ? nil : "the token expired",
            iat <= now + 60 ? nil : "iat is in the future",
            exp - iat <= 3600 ? nil : "the token lives longer than an hour",
            ["download", "redownload"].contains(dtype) ? nil : "dtype is \(dtype)",
        ].compactMap { $0 }
    }
}

/// Writes what a person would see to standard error: progress, results.
public struct DeviceOutput: Sendable {
    public var quiet = false

    public init(quiet: Bool = false) {
        self.quiet = quiet
    }

    public func say(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// The simulated iPhone: MarketplaceKit and its daemon, following the spec to the letter.
public final class Device: @unchecked Sendable {
    public var state: DeviceState
    let store: DeviceStore
    let http: DeviceHTTP
    let output: DeviceOutput
    /// Credentials for reauthentication (restore); nil: print the sign-in URL instead.
    public var credentials: (email: String, password: String)?

    public init(store: DeviceStore, state: DeviceState, http: DeviceHTTP, output: DeviceOutput) {
        self.store = store
        self.state = state
        self.http = http
        self.output = output
    }

    public func save() throws {
        try store.save(state)
    }

    var platform: Platform { Platform(rawValue: state.platform) ?? .iOS }

    /// `iphone` or `ipad`, from the model identifier (`iPhone15,2`).
    var deviceFamily: String { state.model.lowercased().hasPrefix("ipad") ? "ipad" : "iphone" }

    // MARK: Install from a link

    public struct Link: Sendable, Equatable {
        public var package: String
        public var installVerificationToken: String
        public var token: String?
        public var account: String?
        public var appShareURL: String?
    }

    /// Parses a `marketplace-kit://install?…` link, refusing what iOS refuses.
    public static func parseLink(_ text: String, referrer: String?) throws -> Link {
        guard let components = URLComponents(string: text), components.scheme == "marketplace-kit", components.host == "install" else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "not a marketplace-kit://install link")
        }
        let items = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        guard let package = items["alternativeDistributionPackage"], !package.isEmpty else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "the link has no alternativeDistributionPackage")
        }
        let location = try PackageLocation(package)
        guard let token = items["installVerificationToken"], !token.isEmpty else {
            throw DeviceError(.missingInstallVerificationToken, "the link has no installVerificationToken")
        }
        if let referrer, URLComponents(string: referrer)?.host != location.domain {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "the package host \(location.domain) is not the linking page's host")
        }
        return Link(package: package, installVerificationToken: token, token: items["token"].flatMap { $0.isEmpty ? nil : $0 },
                    account: items["account"].flatMap { $0.isEmpty ? nil : $0 }, appShareURL: items["appShareURL"])
    }

    /// Installs from a link in the order of spec §0: the token exchange (when the link has a
    /// `token`), the license request (after `manifest.json`, since it names the variant), `restore`
    /// for this app and version with the exchange's bearer, then the download from the restore
    /// item's package, the check of both install verification tokens (the link's and the restore
    /// item's) and the record, with the `dtype` of each.
    public func install(link: Link) async throws -> DeviceState.InstalledApp {
        let location = try PackageLocation(link.package)
        let domain = location.domain
        var bearer: String?
        if let grant = link.token {
            let metadata = try await MarketplaceClient.oauthMetadata(http, origin: location.origin)
            let clientId = state.clientId(domain: domain, account: link.account)
            let tokens = try await MarketplaceClient.token(http, endpoint: metadata.tokenEndpoint, [
                ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", grant),
                ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
                ("issued_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("client_id", clientId),
            ])
            state.tokens[DeviceState.key(domain: domain, account: link.account)] = tokens
            bearer = tokens.accessToken
            try save()
            output.say("Signed in to \(domain)\(link.account.map { " as \($0)" } ?? "") (token exchange).")
        } else {
            bearer = state.tokens[DeviceState.key(domain: domain, account: link.account)]?.accessToken
        }
        let manifest = try await readManifest(location)
        let variant = try chooseVariant(manifest)
        let endpoints = try await MarketplaceClient.configuration(http, origin: location.origin, appleItemId: manifest.appleItemId)
        try await license(manifest: manifest, variant: variant, endpoints: endpoints, domain: domain, bearer: bearer)
        let item = try await restoreItem(manifest: manifest, link: location, endpoints: endpoints, bearer: bearer)
        try await download(base: item.package.base, variant: variant)
        let linkClaims = try await verify(token: link.installVerificationToken, manifest: manifest, origin: location.origin, source: "the link's")
        let claims = try await verify(token: item.token, manifest: manifest, origin: location.origin, source: "the restore's")
        return try record(manifest, package: item.package, account: link.account, dtype: claims.dtype, linkDtype: linkClaims.dtype)
    }

    /// The `restores` item of a link install: `restore` for the app and version of the link's
    /// package, with the bearer of the exchange. The item must name that app and version, a package
    /// on the link's host with the same manifest, and a token.
    func restoreItem(manifest: PackageManifest, link: PackageLocation, endpoints: MarketplaceEndpoints,
                     bearer: String?) async throws -> (package: PackageLocation, token: String) {
        let body = Self.appsBody([(manifest.appleItemId, manifest.appleVersionId)], platform: state.platform, osVersion: state.osVersion)
        let answer = try await post(endpoints.restore, body, bearer: bearer)
        switch answer.status {
        case 200: break
        case 401, 403: throw DeviceError(.oauthTokenError, "restore answered \(answer.status): Verification Required")
        default: throw DeviceError(.protocolViolation, "restore answered \(answer.status)")
        }
        let object = try http.json(answer, "restore")
        let id = String(manifest.appleItemId)
        func names(_ entry: [String: Any], _ key: String, _ value: String) -> Bool { entry[key].map { "\($0)" } == value }
        if let failure = ((object["failures"] as? [[String: Any]]) ?? []).first(where: { names($0, "appleItemId", id) }) {
            let detail = (failure["failure"] as? [String: Any])?["description"] as? String ?? ""
            throw DeviceError(.appNotAvailable, "App Not Available: restore refused \(id)\(detail.isEmpty ? "" : " (\(detail))")")
        }
        guard let item = ((object["restores"] as? [[String: Any]]) ?? []).first(where: { names($0, "appleItemId", id) }) else {
            throw DeviceError(.protocolViolation, "restore answered neither an item nor a failure for \(id)")
        }
        guard names(item, "appleVersionId", String(manifest.appleVersionId)) else {
            throw DeviceError(.protocolViolation, "restore offered version \(item["appleVersionId"] ?? "none") of \(id), the link is for \(manifest.appleVersionId)")
        }
        guard let text = item["alternativeDistributionPackage"] as? String else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "the restore item for \(id) has no alternativeDistributionPackage")
        }
        let package = try PackageLocation(text)
        guard package.domain == link.domain else {
            throw DeviceError(.invalidAlternativeDistributionPackageURL, "restore named a package on \(package.domain), the link's is on \(link.domain)")
        }
        if package.base != link.base, try await readManifest(package) != manifest {
            throw DeviceError(.protocolViolation, "restore named \(package.base), whose manifest is not that of the link's package \(link.base)")
        }
        guard let token = item["installVerificationToken"] as? String, !token.isEmpty else {
            throw DeviceError(.missingInstallVerificationToken, "the restore item for \(id) has no installVerificationToken")
        }
        return (package, token)
    }

    /// `manifest.json` of a package.
    func readManifest(_ package: PackageLocation) async throws -> PackageManifest {
        let answer = try await http.send(.GET, package.base + "manifest.json")
        guard answer.status == 200 else {
            throw DeviceError(.invalidManifest, "\(package.base)manifest.json answered \(answer.status)")
        }
        switch PackageManifest.parse(Data(answer.body)) {
        case .success(let parsed): return parsed
        case .failure(let error): throw DeviceError(.invalidManifest, error.description)
        }
    }

    /// The steps of a restore or update item: manifest, license, download, token check, record.
    func installPackage(_ text: String, token: String, account: String?, bearer: String?) async throws -> DeviceState.InstalledApp {
        let package = try PackageLocation(text)
        let manifest = try await readManifest(package)
        let variant = try chooseVariant(manifest)
        let endpoints = try await MarketplaceClient.configuration(http, origin: package.origin, appleItemId: manifest.appleItemId)
        try await license(manifest: manifest, variant: variant, endpoints: endpoints, domain: package.domain, bearer: bearer)
        try await download(base: package.base, variant: variant)
        let claims = try await verify(token: token, manifest: manifest, origin: package.origin, source: "the item's")
        return try record(manifest, package: package, account: account, dtype: claims.dtype, linkDtype: nil)
    }

    /// Records an installed app and saves the device.
    func record(_ manifest: PackageManifest, package: PackageLocation, account: String?, dtype: String,
                linkDtype: String?) throws -> DeviceState.InstalledApp {
        let app = DeviceState.InstalledApp(appleItemId: manifest.appleItemId, appleVersionId: manifest.appleVersionId, bundleId: manifest.bundleId,
                                           shortVersionString: manifest.shortVersionString, packageURL: package.base, domain: package.domain,
                                           account: account, installedAt: Date(), dtype: dtype, linkDtype: linkDtype)
        state.install(app)
        try save()
        output.say("Installed \(manifest.bundleId) \(manifest.shortVersionString) (\(manifest.appleItemId)/\(manifest.appleVersionId)), dtype \(dtype).")
        return app
    }

    /// Platform, OS and capabilities, then the variant whose `installTargets` match this device.
    func chooseVariant(_ manifest: PackageManifest) throws -> PackageManifest.Asset {
        let candidates: [Platform] = platform == .iPadOS ? [.iPadOS, .iOS] : [platform]
        guard let target = candidates.first(where: { manifest.platforms.contains($0) }) else {
            throw DeviceError(.unsupportedPlatform, "the app supports \(manifest.platforms.map(\.rawValue).joined(separator: ", ")), this device runs \(state.platform)")
        }
        if let minimum = manifest.minimumSystemVersions[target], let os = OSVersion(state.osVersion), os < minimum {
            throw DeviceError(.minimumPlatformVersionNotSatisfied, "the app needs \(target.rawValue) \(minimum), this device runs \(state.osVersion)")
        }
        let known: Set<String> = ["arm64", "metal", "still-camera", "wifi", "location-services", "gps", "microphone", "telephony"]
        let missing = manifest.requiredDeviceCapabilities.filter { !known.contains($0.lowercased()) }
        guard missing.isEmpty else { throw DeviceError(.missingCapabilities, "this device lacks \(missing.joined(separator: ", "))") }
        let os = target.rawValue.lowercased()
        if let variant = manifest.variants.first(where: { $0.installTargets.contains { $0.device.lowercased() == deviceFamily && $0.os.lowercased() == os } })
            ?? manifest.variants.first(where: { $0.installTargets.contains { $0.device.lowercased() == deviceFamily } })
            ?? (deviceFamily == "ipad" ? manifest.variants.first(where: { $0.installTargets.contains { $0.device.lowercased() == "iphone" } }) : nil) {
            return variant
        }
        throw DeviceError(.noSupportedVariant, "no variant installs on \(deviceFamily)/\(os)")
    }

    // MARK: Licenses

    func encryptionKey(_ endpoints: MarketplaceEndpoints) async throws -> _RSA.Encryption.PublicKey {
        let answer = try await http.send(.GET, endpoints.encryptionCertificateURL)
        guard answer.status == 200, let certificate = try? Certificate(derEncoded: answer.body),
              let key = try? _RSA.Encryption.PublicKey(derRepresentation: Array(certificate.publicKey.subjectPublicKeyInfoBytes)) else {
            throw DeviceError(.invalidLicense, "the encryption certificate at \(endpoints.encryptionCertificateURL) is not a DER RSA certificate")
        }
        return key
    }

    /// The license request before an install (spec §3.1), sealed like iOS does.
    func license(manifest: PackageManifest, variant: PackageManifest.Asset, endpoints: MarketplaceEndpoints, domain: String, bearer: String?) async throws {
        let key = try await encryptionKey(endpoints)
        let request = DevelopmentLicenseRequest(requestId: UInt64.random(in: 1...UInt64(Int64.max)), deviceId: state.deviceId, action: .create,
                                                appleItemIds: [manifest.appleItemId])
        let sealed = try LicenseCrypto.seal(request: request.json, for: key)
        let body = #"{"licenseRequest": "\#(Data(sealed.request).base64EncodedString())", "licenseKey": "\#(Data(sealed.licenseKey).base64EncodedString())", "appsById": {"\#(manifest.appleItemId)": {"appleVersionId": "\#(manifest.appleVersionId)", "assetPublicId": "\#(variant.publicId)"}}}"#
        var headers = [("Content-Type", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        let answer = try await http.send(.POST, endpoints.dynamicLicenseURL, headers: headers, body: Array(body.utf8))
        switch answer.status {
        case 200: break
        case 401, 403: throw DeviceError(.oauthTokenError, "the license endpoint answered \(answer.status): Verification Required")
        default: throw DeviceError(.invalidLicense, "No valid license provided (the license endpoint answered \(answer.status))")
        }
        let object = try http.json(answer, "the license endpoint")
        if let refused = object["unlicensedApps"] as? [Any], refused.contains(where: { "\($0)" == String(manifest.appleItemId) }) {
            throw DeviceError(.invalidLicense, "No valid license provided: the marketplace refused a license for \(manifest.appleItemId)")
        }
        guard let blob = (object["license"] as? String).flatMap({ Data(base64Encoded: $0) }) else {
            throw DeviceError(.invalidLicense, "No valid license provided: no base64 license in the answer")
        }
        for entry in Self.developmentLicenses(blob) where entry.appleItemId == manifest.appleItemId {
            state.licenses.removeAll { $0.appleItemId == entry.appleItemId && $0.domain == domain }
            state.licenses.append(DeviceState.License(licenseId: entry.licenseId, appleItemId: entry.appleItemId, domain: domain, expiresAt: entry.expiresAt))
        }
        output.say("Licensed \(manifest.appleItemId).")
    }

    /// The licenses inside a development license (Souk's documented format); empty for an opaque
    /// blob from Apple's SDK, which only iOS can read.
    static func developmentLicenses(_ blob: Data) -> [DeviceState.License] {
        guard let text = String(data: blob, encoding: .utf8), text.split(separator: ".").count == 3,
              let payload = Base64URL.decode(String(text.split(separator: ".")[1])),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let list = object["licenses"] as? [[String: Any]] else { return [] }
        return list.compactMap { entry in
            guard let id = (entry["licenseId"] as? String).flatMap(UInt64.init), let item = (entry["appleItemId"] as? String).flatMap(UInt64.init) else { return nil }
            let issued = entry["issuedTime"] as? Int ?? 0
            let duration = entry["duration"] as? Int ?? 0
            return DeviceState.License(licenseId: id, appleItemId: item, domain: "", expiresAt: Date(timeIntervalSince1970: TimeInterval(issued + duration)))
        }
    }

    // MARK: Download

    /// Downloads the variant with a progress bar into `downloads/<publicId>.part`, streaming it to
    /// disk and checking its size and chunk digests as the bytes arrive (after an interruption, the
    /// part already on disk is hashed again and the rest asked for with `Range`), then moves it to
    /// `apps/<publicId>.ipa`. A mismatch discards the part.
    func download(base: String, variant: PackageManifest.Asset) async throws {
        try FileManager.default.createDirectory(atPath: store.downloads, withIntermediateDirectories: true)
        let path = store.downloads + "/\(variant.publicId).part"
        let url = base + variant.assetPath
        let started = Date()
        var lastDraw = Date.distantPast
        var attempts = 0
        var verifier = VariantVerifier(variant)
        do {
            while true {
                attempts += 1
                do {
                    try await http.download(url, to: path, expectedSize: variant.expectedSize, startsAt: { offset in
                        verifier = VariantVerifier(variant)
                        try Self.feed(path, upTo: offset, into: &verifier)
                    }, chunk: { bytes in
                        try verifier.feed(bytes)
                    }, progress: { received, total in
                        let now = Date()
                        guard now.timeIntervalSince(lastDraw) > 0.2 || received == total else { return }
                        lastDraw = now
                        self.output.say(Self.progressLine(received: received, total: total, elapsed: now.timeIntervalSince(started)))
                    })
                    break
                } catch let error as DeviceError where error.name != .networkError {
                    throw error
                } catch {
                    guard attempts < 5 else { throw DeviceError(.networkError, "the download of \(url) failed 5 times: \(error)") }
                    output.say("Download interrupted (\(error)); resuming…")
                    try await Task.sleep(for: .milliseconds(200 * attempts))
                }
            }
            try verifier.finish()
        } catch let error as DeviceError where error.name == .invalidAlternativeDistributionPackageSignature {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        try FileManager.default.createDirectory(atPath: store.apps, withIntermediateDirectories: true)
        let final = store.apps + "/\(variant.publicId).ipa"
        try? FileManager.default.removeItem(atPath: final)
        try FileManager.default.moveItem(atPath: path, toPath: final)
    }

    /// Feeds the first `count` bytes of the file at `path` to `verifier`, a megabyte at a time.
    static func feed(_ path: String, upTo count: Int64, into verifier: inout VariantVerifier) throws {
        guard count > 0 else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DeviceError(.networkError, "cannot read \(path)") }
        defer { try? handle.close() }
        var left = count
        while left > 0 {
            guard let data = try handle.read(upToCount: Int(min(left, 1 << 20))), !data.isEmpty else {
                throw DeviceError(.networkError, "\(path) ended before byte \(count)")
            }
            try data.withUnsafeBytes { try verifier.feed($0) }
            left -= Int64(data.count)
        }
    }

    static func progressLine(received: Int64, total: Int64?, elapsed: TimeInterval) -> String {
        let rate = elapsed > 0 ? Double(received) / elapsed : 0
        func size(_ bytes: Double) -> String { bytes >= 1_048_576 ? String(format: "%.1f MB", bytes / 1_048_576) : String(format: "%.0f KB", bytes / 1024) }
        guard let total, total > 0 else { return "  \(size(Double(received))) at \(size(rate))/s" }
        let fraction = min(1, Double(received) / Double(total))
        let bar = String(repeating: "#", count: Int(fraction * 30)) + String(repeating: ".", count: 30 - Int(fraction * 30))
        let eta = rate > 0 ? Int(Double(total - received) / rate) : 0
        return String(format: "  [%@] %3.0f%%  %@ of %@  %@/s  ETA %ds", bar, fraction * 100, size(Double(received)), size(Double(total)), size(rate), eta)
    }

    // MARK: Install verification token

    /// Checks the token against the marketplace's published keys: ES256, audience, bundle id,
    /// item and version ids, lifetime, and a nonce never seen before; answers its claims.
    @discardableResult
    func verify(token: String, manifest: PackageManifest, origin: String, source: String) async throws -> VerificationClaims {
        let metadata = try? await MarketplaceClient.oauthMetadata(http, origin: origin)
        let jwksURL = metadata?.jwksURI ?? origin + "/.well-known/jwks.json"
        let answer = try await http.send(.GET, jwksURL)
        guard answer.status == 200 else { throw DeviceError(.invalidInstallVerificationToken, "no JWKS at \(jwksURL)") }
        guard let claims = await VerificationClaims.verified(token, jwks: answer.text) else {
            throw DeviceError(.invalidInstallVerificationToken, "\(source) token's signature does not verify against \(jwksURL)")
        }
        let problems = claims.problems(token: token, manifest: manifest)
            + (state.seenNonces.contains(claims.nonce) ? ["the nonce was seen before"] : [])
        guard problems.isEmpty else { throw DeviceError(.invalidInstallVerificationToken, "\(source) token: " + problems.joined(separator: "; ")) }
        state.seenNonces.append(claims.nonce)
        if state.seenNonces.count > 10_000 { state.seenNonces.removeFirst(state.seenNonces.count - 10_000) }
        output.say("Install verification token OK (\(source): \(claims.dtype), issuer \(claims.iss)).")
        return claims
    }
}
