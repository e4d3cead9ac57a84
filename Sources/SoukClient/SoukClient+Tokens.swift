import Foundation
import OpenAPIRuntime

extension SoukClient {
    /// Trades a refresh token for a new pair (`POST /oauth/token`, `grant_type=refresh_token`). The
    /// refresh token is rotated: keep the new one. Throws `.oauth(error: "invalid_grant", …)` when it
    /// was revoked or already used, which means signing in again.
    public func refresh(refreshToken: String, clientId: String) async throws -> SoukTokens {
        let output = try await SoukClientError.mapping {
            try await generated.token(body: .urlEncodedForm(.init(grantType: .refreshToken, clientId: clientId, refreshToken: refreshToken)))
        }
        switch output {
        case .ok(let ok):
            let answer = try ok.body.json
            return SoukTokens(accessToken: answer.accessToken, refreshToken: answer.refreshToken,
                              expiresIn: answer.expiresIn, scope: answer.scope)
        case .badRequest(let refused), .unauthorized(let refused):
            let error = try refused.body.json
            throw SoukClientError.oauth(error: error.error.rawValue, description: error.errorDescription)
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .contentTooLarge: throw SoukClientError.unexpectedResponse(status: 413)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }

    /// Revokes a token (RFC 7009, `POST /oauth/revoke`): signing out. Revoking a refresh token ends
    /// its whole family.
    public func revoke(token: String) async throws {
        let output = try await SoukClientError.mapping {
            try await generated.revokeToken(body: .urlEncodedForm(.init(token: token)))
        }
        switch output {
        case .ok: return
        case .badRequest(let refused):
            let error = try refused.body.json
            throw SoukClientError.oauth(error: error.error.rawValue, description: error.errorDescription)
        case .serviceUnavailable(let outage): throw SoukClientError.unavailable(outage.headers.retryAfter)
        case .contentTooLarge: throw SoukClientError.unexpectedResponse(status: 413)
        case .undocumented(let status, _): throw SoukClientError.unexpectedResponse(status: status)
        }
    }
}
