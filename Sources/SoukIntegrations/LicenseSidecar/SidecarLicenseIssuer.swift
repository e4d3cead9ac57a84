import AsyncHTTPClient
import Foundation
import NIOCore
import SoukCore

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

    private func post(_ path: String, _ body: [UInt8]) async throws -> JSONValue {
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
