import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The member's own two-factor settings (`/developer/security`): the operator console's enrolment,
/// in the developer console. While two-factor sign-in is required and not on, the only page open.
extension DeveloperConsoleController {
    @Sendable func security(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        return try await securityPage(session: session, error: nil, status: .ok)
    }

    func securityPage(session: DeveloperSession, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let values = try await ConsoleTwoFactorPage.developers.values(
            account: session.accountID, email: session.account.email, enabled: session.account.totpEnabled, totp: totp,
            issuer: { try await marketplaceName() }, error: error)
        return try await render(.developerSecurity, session: session, title: "Two-factor sign-in", page: values, status: status)
    }

    /// Turns TOTP on once a code from the app is confirmed; shows the ten recovery codes once.
    @Sendable func confirmTOTP(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await memberForm(request, context: context)
        guard let codes = try await totp.confirm(account: session.accountID, code: form["code"] ?? "") else {
            return try await securityPage(session: session, error: "That code is not right. Check the app's clock and try the current code.",
                                          status: .badRequest)
        }
        // The person just gave a code: this session has its second factor.
        try await totp.markSecondFactor(sessionToken: session.cookie)
        try await services.audit.record(actor: session.actor.auditName, action: .accountTOTPEnable,
                                        target: "account:\(session.accountID.uuidString.lowercased())",
                                        before: ["email": session.account.email, "totp": "off"], after: ["email": session.account.email, "totp": "on"])
        return try await render(.developerRecoveryCodes, session: session, title: "Recovery codes", page: ConsoleTwoFactorPage.developers.recoveryCodes(codes))
    }
}
