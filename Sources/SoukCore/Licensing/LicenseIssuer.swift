import Foundation

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

    public init(licenseId: UInt64, appleItemId: UInt64, appleVersionId: UInt64, assetPublicId: String?, keyBlob: String?,
                issuedAt: Date, duration: TimeInterval) {
        self.licenseId = licenseId
        self.appleItemId = appleItemId
        self.appleVersionId = appleVersionId
        self.assetPublicId = assetPublicId
        self.keyBlob = keyBlob
        self.issuedAt = issuedAt
        self.duration = duration
    }
}

extension LicenseGrant {
    /// The members every issuer format shares: ids as decimal strings, times in seconds.
    public func writeTerms(into writer: inout JSONWriter) {
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
