import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import SoukCore

/// What the opaque request asks for, as the issuer read it.
public struct LicenseAsk: Sendable, Equatable {
    public var requestId: String?
    /// The device's id (the SDK exposes one; the development format carries it).
    public var deviceId: String
    /// For renewals: the licenses to renew.
    public var licenseIds: [UInt64]

    public init(requestId: String?, deviceId: String, licenseIds: [UInt64] = []) {
        self.requestId = requestId
        self.deviceId = deviceId
        self.licenseIds = licenseIds
    }
}

/// One license Souk decided to grant (new or renewed).
public struct LicenseGrant: Sendable, Equatable {
    public var licenseId: UInt64
    public var appleItemId: UInt64
    public var appleVersionId: UInt64
    public var assetPublicId: String?
    /// The variant's `alternativeDistributionKeyBlob`, when known.
    public var keyBlob: String?
    public var issuedAt: Date
    public var duration: TimeInterval
}

extension LicenseGrant {
    /// The members every issuer format shares: ids as decimal strings, times in seconds.
    func writeTerms(into writer: inout JSONWriter) {
        writer.field("licenseId", String(licenseId))
        writer.field("appleItemId", String(appleItemId))
        writer.field("appleVersionId", String(appleVersionId))
        writer.key("issuedTime")
        writer.integer(Int64(issuedAt.timeIntervalSince1970))
        writer.key("duration")
        writer.integer(Int64(duration))
    }
}

public enum LicenseAction: String, Sendable {
    case create
    case renew
}

/// The part of licensing only Apple's closed App License Delivery SDK can do: read the opaque
/// request and build the signed license blob. Souk keeps everything else (who gets a license,
/// ids, durations, revocation).
public protocol LicenseIssuer: Sendable {
    func read(_ request: [UInt8], action: LicenseAction) async throws -> LicenseAsk
    func license(for ask: LicenseAsk, request: [UInt8], action: LicenseAction, grants: [LicenseGrant]) async throws -> [UInt8]
}

/// A request the issuer cannot read (400) or an issuer that failed (502).
public enum LicenseIssuerError: Error, CustomStringConvertible {
    case unreadable(String)
    case unavailable(String)

    public var description: String {
        switch self {
        case .unreadable(let message), .unavailable(let message): message
        }
    }
}

/// The default issuer: requests in Souk's documented development format
/// (`DevelopmentLicenseRequest`), licenses as an ES256 JWS signed by the signing certificate's key
/// with the certificate in `x5c`, so that any client can verify them. Not accepted by iOS.
public struct DevelopmentLicenseIssuer: LicenseIssuer {
    let signingKey: P256.Signing.PrivateKey
    let certificateDER: [UInt8]

    public init(signingKey: P256.Signing.PrivateKey, certificateDER: [UInt8]) {
        self.signingKey = signingKey
        self.certificateDER = certificateDER
    }

    public func read(_ request: [UInt8], action: LicenseAction) async throws -> LicenseAsk {
        let parsed: DevelopmentLicenseRequest
        do {
            parsed = try DevelopmentLicenseRequest.parse(request)
        } catch {
            throw LicenseIssuerError.unreadable(error.description)
        }
        guard parsed.action.rawValue == action.rawValue else {
            throw LicenseIssuerError.unreadable("The request's action is \(parsed.action.rawValue), this endpoint takes \(action.rawValue).")
        }
        return LicenseAsk(requestId: String(parsed.requestId), deviceId: parsed.deviceId, licenseIds: parsed.licenseIds)
    }

    public func license(for ask: LicenseAsk, request: [UInt8], action: LicenseAction, grants: [LicenseGrant]) async throws -> [UInt8] {
        var header = JSONWriter()
        header.beginObject()
        header.field("alg", "ES256")
        header.field("typ", "JWT")
        header.key("x5c")
        header.beginArray()
        header.string(Data(certificateDER).base64EncodedString())
        header.endArray()
        header.endObject()
        var payload = JSONWriter()
        payload.beginObject()
        if let requestId = ask.requestId { payload.field("requestId", requestId) }
        payload.field("deviceId", ask.deviceId)
        payload.field("action", action.rawValue)
        payload.key("iat")
        payload.integer(Int64(Date().timeIntervalSince1970))
        payload.key("licenses")
        payload.beginArray()
        for grant in grants {
            payload.beginObject()
            grant.writeTerms(into: &payload)
            payload.field("deviceId", ask.deviceId)
            payload.endObject()
        }
        payload.endArray()
        payload.endObject()
        let signingInput = Base64URL.encode(Data(header.bytes)) + "." + Base64URL.encode(Data(payload.bytes))
        let signature = try signingKey.signature(for: Data(signingInput.utf8))
        return Array((signingInput + "." + Base64URL.encode(signature.rawRepresentation)).utf8)
    }
}

/// The adapter for Apple's SDK: a small sidecar service that links the SDK speaks this HTTP
/// contract (docs/licensing.md), with an optional shared bearer token:
///
/// - `POST /v1/requests/read` `{"action": "create"|"renew", "request": "<base64>"}` →
///   `{"deviceId": "…", "requestId": "…", "licenseIds": ["…"]}`
/// - `POST /v1/licenses` `{"action", "request", "deviceId", "licenses": [{"licenseId", "appleItemId",
///   "appleVersionId", "assetPublicId", "keyBlob", "issuedTime", "duration"}]}` → `{"license": "<base64>"}`
public struct SidecarLicenseIssuer: LicenseIssuer {
    let baseURL: String
    let token: String?
    let http: HTTPClient

    public init(baseURL: String, token: String?, http: HTTPClient = .shared) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.http = http
    }

    func post(_ path: String, _ body: [UInt8]) async throws -> JSONValue {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .seconds(20))
            bytes = try await response.body.collect(upTo: 16 << 20)
        } catch {
            throw LicenseIssuerError.unavailable("the license sidecar at \(baseURL) cannot be reached")
        }
        guard let document = try? JSONValue.parse(Array(buffer: bytes)) else {
            throw LicenseIssuerError.unavailable("the license sidecar answered \(response.status.code) without JSON")
        }
        switch response.status.code {
        case 200: return document
        case 400, 422: throw LicenseIssuerError.unreadable(document["error"]?.stringValue ?? "the SDK cannot read this request")
        default: throw LicenseIssuerError.unavailable("the license sidecar answered \(response.status.code)")
        }
    }

    public func read(_ request: [UInt8], action: LicenseAction) async throws -> LicenseAsk {
        var body = JSONWriter()
        body.beginObject()
        body.field("action", action.rawValue)
        body.field("request", Data(request).base64EncodedString())
        body.endObject()
        let answer = try await post("/v1/requests/read", body.bytes)
        guard let deviceId = answer["deviceId"]?.stringValue, !deviceId.isEmpty else {
            throw LicenseIssuerError.unavailable("the license sidecar did not name the device")
        }
        var ids: [UInt64] = []
        for item in answer["licenseIds"]?.arrayValue ?? [] {
            guard let id = AppleID.from(json: item) else { throw LicenseIssuerError.unavailable("the license sidecar sent a bad license id") }
            ids.append(id)
        }
        let requestId: String? = switch answer["requestId"] {
        case .string(let text)?, .number(let text)?: text
        default: nil
        }
        return LicenseAsk(requestId: requestId, deviceId: deviceId, licenseIds: ids)
    }

    public func license(for ask: LicenseAsk, request: [UInt8], action: LicenseAction, grants: [LicenseGrant]) async throws -> [UInt8] {
        var body = JSONWriter()
        body.beginObject()
        body.field("action", action.rawValue)
        body.field("request", Data(request).base64EncodedString())
        body.field("deviceId", ask.deviceId)
        body.key("licenses")
        body.beginArray()
        for grant in grants {
            body.beginObject()
            grant.writeTerms(into: &body)
            body.key("assetPublicId")
            if let asset = grant.assetPublicId { body.string(asset) } else { body.null() }
            body.key("keyBlob")
            if let blob = grant.keyBlob { body.string(blob) } else { body.null() }
            body.endObject()
        }
        body.endArray()
        body.endObject()
        let answer = try await post("/v1/licenses", body.bytes)
        guard let text = answer["license"]?.stringValue, let blob = Data(base64Encoded: text) else {
            throw LicenseIssuerError.unavailable("the license sidecar did not return a base64 license")
        }
        return Array(blob)
    }
}
