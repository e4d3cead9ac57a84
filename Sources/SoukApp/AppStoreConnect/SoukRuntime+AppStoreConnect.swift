import Foundation
import SoukIntegrations

extension SoukRuntime {
    /// The App Store Connect API client the settings describe, or nil when no API key is set.
    public func appStoreConnectClient() throws -> (any AppStoreConnectAPI)? {
        let settings = config.appStoreConnect
        guard let keyId = settings.keyId, let issuerId = settings.issuerId, let path = settings.privateKeyPath else { return nil }
        let pem: String
        do {
            pem = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StartupError("cannot read the App Store Connect API key at \(path)")
        }
        return AppStoreConnectClient(baseURL: settings.baseURL,
                                     credentials: .init(keyId: keyId, issuerId: issuerId, privateKeyPEM: pem))
    }
}
