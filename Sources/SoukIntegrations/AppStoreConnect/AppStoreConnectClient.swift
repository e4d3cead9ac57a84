import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import SoukCore

/// What Souk asks of the App Store Connect API when a package becomes available.
public protocol AppStoreConnectAPI: Sendable {
    /// `GET /v1/alternativeDistributionPackageVersions/{id}`: the package zip's download URL and state.
    func packageVersion(id: String) async throws -> AppStoreConnectPackageVersion
    /// `GET /v1/alternativeDistributionPackageVersions/{id}/variants`: each variant's id and its
    /// `alternativeDistributionKeyBlob` (what App License Delivery needs per variant).
    func packageVariants(versionId: String) async throws -> [AppStoreConnectVariant]
    /// `GET /v1/apps/{id}`: name and bundle id, for an app the catalog does not have yet.
    func app(id: UInt64) async throws -> AppStoreConnectApp
    /// Downloads `url` (a package zip) into the file at `path`.
    func download(_ url: String, to path: String) async throws
}

public struct AppStoreConnectPackageVersion: Sendable, Equatable {
    public var url: String
    /// `COMPLETED`, or `REPLACED` when a newer package version superseded it.
    public var state: String
    public var version: String?
}

public struct AppStoreConnectVariant: Sendable, Equatable {
    public var id: String
    public var keyBlob: String?
}

public struct AppStoreConnectApp: Sendable, Equatable {
    public var name: String
    public var bundleId: String
}

/// A failure talking to App Store Connect, said without secrets.
public struct AppStoreConnectError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// The App Store Connect API over HTTPS (JSON:API documents, ES256 bearer tokens made from an API
/// key: header `kid` = key id, claims `iss` = issuer id, `aud` = `appstoreconnect-v1`, 20 minutes).
/// The base URL is a setting so that tests, and operators behind a proxy, can point it elsewhere.
public struct AppStoreConnectClient: AppStoreConnectAPI {
    public struct Credentials: Sendable {
        public var keyId: String
        public var issuerId: String
        public var privateKeyPEM: String

        public init(keyId: String, issuerId: String, privateKeyPEM: String) {
            self.keyId = keyId
            self.issuerId = issuerId
            self.privateKeyPEM = privateKeyPEM
        }
    }

    struct Claims: JWTPayload {
        var iss: String
        var iat: Int64
        var exp: Int64
        var aud: String
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let baseURL: String
    let credentials: Credentials
    let http: HTTPClient
    /// Largest package zip accepted.
    static let maxDownload: Int64 = 16 << 30

    public init(baseURL: String, credentials: Credentials, http: HTTPClient = .shared) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.credentials = credentials
        self.http = http
    }

    func bearerToken(now: Date = Date()) async throws -> String {
        let keys = JWTKeyCollection()
        do {
            await keys.add(ecdsa: try ES256PrivateKey(pem: credentials.privateKeyPEM), kid: JWKIdentifier(string: credentials.keyId))
        } catch {
            throw AppStoreConnectError(description: "the App Store Connect API key is not an ES256 private key (PEM)")
        }
        let issued = Int64(now.timeIntervalSince1970)
        return try await keys.sign(Claims(iss: credentials.issuerId, iat: issued, exp: issued + 1200, aud: "appstoreconnect-v1"),
                                   kid: JWKIdentifier(string: credentials.keyId), header: ["typ": "JWT"])
    }

    func document(_ path: String) async throws -> JSONValue {
        var request = HTTPClientRequest(url: baseURL + path)
        request.headers.add(name: "Authorization", value: "Bearer \(try await bearerToken())")
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        guard response.status == .ok else {
            throw AppStoreConnectError(description: "App Store Connect answered \(response.status.code) for GET \(path)")
        }
        guard let document = try? JSONValue.parse(Array(buffer: body)) else {
            throw AppStoreConnectError(description: "App Store Connect answered GET \(path) with something that is not JSON")
        }
        return document
    }

    public func packageVersion(id: String) async throws -> AppStoreConnectPackageVersion {
        let path = "/v1/alternativeDistributionPackageVersions/\(Self.escape(id))"
        let attributes = try await document(path)["data"]?["attributes"]
        guard let url = attributes?["url"]?.stringValue, url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw AppStoreConnectError(description: "package version \(id) has no download URL")
        }
        return AppStoreConnectPackageVersion(url: url, state: attributes?["state"]?.stringValue ?? "COMPLETED",
                                             version: attributes?["version"]?.stringValue)
    }

    public func packageVariants(versionId: String) async throws -> [AppStoreConnectVariant] {
        let document = try await document("/v1/alternativeDistributionPackageVersions/\(Self.escape(versionId))/variants?limit=200")
        return (document["data"]?.arrayValue ?? []).compactMap { item in
            guard let id = item["id"]?.stringValue else { return nil }
            return AppStoreConnectVariant(id: id, keyBlob: item["attributes"]?["alternativeDistributionKeyBlob"]?.stringValue)
        }
    }

    public func app(id: UInt64) async throws -> AppStoreConnectApp {
        let attributes = try await document("/v1/apps/\(id)")["data"]?["attributes"]
        guard let name = attributes?["name"]?.stringValue, let bundleId = attributes?["bundleId"]?.stringValue else {
            throw AppStoreConnectError(description: "app \(id) has no name or bundle id in App Store Connect")
        }
        return AppStoreConnectApp(name: name, bundleId: bundleId)
    }

    /// Streams the body into `path`; the URL is pre-signed, so no bearer token is sent with it.
    public func download(_ url: String, to path: String) async throws {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .hours(1))
        guard response.status == .ok else {
            throw AppStoreConnectError(description: "the package download answered \(response.status.code)")
        }
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw AppStoreConnectError(description: "cannot write \(path)")
        }
        defer { try? handle.close() }
        var written: Int64 = 0
        for try await chunk in response.body {
            written += Int64(chunk.readableBytes)
            guard written <= Self.maxDownload else { throw AppStoreConnectError(description: "the package is larger than \(Self.maxDownload) bytes") }
            try handle.write(contentsOf: chunk.readableBytesView)
        }
    }

    static func escape(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? component
    }
}
