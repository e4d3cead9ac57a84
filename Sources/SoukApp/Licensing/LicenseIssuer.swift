import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import SoukCore

/// The default issuer: requests in Souk's documented development format
/// (`DevelopmentLicenseRequest`), licenses as an ES256 JWS signed by the signing certificate's key
/// with the certificate in `x5c`, so that any client can verify them. Not accepted by iOS.
public struct DevelopmentLicenseIssuer: LicenseIssuer {
    package let signingKey: P256.Signing.PrivateKey
    package let certificateDER: [UInt8]

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
