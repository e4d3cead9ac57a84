import SoukCore
import SoukStore

/// The device authorization grant's client rule and its token-endpoint half (RFC 8628 §3.4):
/// only a registered `tv` client may use it; any other registered client is
/// `unauthorized_client`, an unregistered `client_id` is `invalid_client`.
struct DeviceGrant: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    let tokens: TokenStore
    let clients: ClientRegistry

    /// The registered `tv` client `clientId` names, or the error to answer.
    func tvClient(_ clientId: String) async throws -> Result<RegisteredClient, OAuthError> {
        guard let client = try await clients.find(clientId: clientId) else {
            return .failure(OAuthError(.invalidClient, "The client_id is not a registered client."))
        }
        guard client.kind == .tv else {
            return .failure(OAuthError(.unauthorizedClient, "Only a tv client may use the device authorization grant."))
        }
        return .success(client)
    }

    /// One poll of the token endpoint.
    func redeem(deviceCode: String?, clientId: String) async throws -> Result<TokenPair, OAuthError> {
        guard let deviceCode else { return .failure(OAuthError(.invalidRequest, "device_code is required.")) }
        if case .failure(let error) = try await tvClient(clientId) { return .failure(error) }
        return try await tokens.redeemDeviceCode(deviceCode, clientId: clientId)
    }
}
