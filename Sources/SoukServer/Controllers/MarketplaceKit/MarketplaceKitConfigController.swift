import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `/.well-known/marketplace-kit` (spec §1) and the license certificates it names: JSON, no
/// redirects, no authentication; overrides from `souk apps override` become `overridesByAppleItemID`.
struct MarketplaceKitConfigController<Context: RequestContext> {
    let config: SoukConfig
    let catalog: CatalogStore
    let keys: SoukKeys

    func addRoutes(to router: Router<Context>) {
        router.get(".well-known/marketplace-kit", use: configuration)
        router.get("marketplace-kit/certificates/encryption.cer", use: encryptionCertificate)
        router.get("marketplace-kit/certificates/signing.cer", use: signingCertificate)
    }

    var base: MarketplaceConfiguration {
        .standard(publicURL: config.publicURL, pollingInterval: config.updatesPollingHours)
    }

    @Sendable func configuration(_ request: Request, context: Context) async throws -> Response {
        let overrides = try await catalog.overrides().mapValues { $0.applied(to: base) }
        return .json(base.document(overrides: overrides), cacheControl: "public, max-age=300")
    }

    @Sendable func encryptionCertificate(_ request: Request, context: Context) async throws -> Response {
        Self.certificate(keys.licenseEncryptionCertificateDER)
    }

    @Sendable func signingCertificate(_ request: Request, context: Context) async throws -> Response {
        Self.certificate(keys.licenseSigningCertificateDER)
    }

    static func certificate(_ der: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/pkix-cert", .cacheControl: "public, max-age=3600"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: der)))
    }
}
