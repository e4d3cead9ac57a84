import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The operator's own two-factor settings (`/admin/security`) and the audit log page.
extension AdminController {
    /// Shows the `otpauth://` URI and base32 secret to enrol (while TOTP is off), or its state.
    /// While two-factor sign-in is required and not on, the only console page its holder sees.
    @Sendable func security(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        return try await securityPage(session: session, error: nil, status: .ok)
    }

    func securityPage(session: ConsoleSession, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let values = try await ConsoleTwoFactorPage.operators.values(
            account: session.accountID, email: session.account.email, enabled: session.account.totpEnabled, totp: totp,
            issuer: { try await services.marketplaceName() }, error: error)
        return try await render(.adminSecurity, session: session, title: "Two-factor sign-in", page: values, status: status)
    }

    /// Turns TOTP on once a code from the app is confirmed; shows the ten recovery codes once.
    @Sendable func confirmTOTP(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        guard let codes = try await totp.confirm(account: session.accountID, code: form["code"] ?? "") else {
            return try await securityPage(session: session, error: "That code is not right. Check the app's clock and try the current code.",
                                          status: .badRequest)
        }
        // The person just gave a code: this session has its second factor.
        try await totp.markSecondFactor(sessionToken: session.cookie)
        try await audit.record(actor: session.actor, action: .accountTOTPEnable, target: "account:\(session.accountID.uuidString.lowercased())",
                               before: ["email": session.account.email, "totp": "off"], after: ["email": session.account.email, "totp": "on"])
        return try await render(.adminRecoveryCodes, session: session, title: "Recovery codes", page: ConsoleTwoFactorPage.operators.recoveryCodes(codes))
    }

    /// `/admin/audit`: newest first, 50 a page, filtered by actor and/or action.
    @Sendable func auditPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let actor = request.uri.queryParameters["actor"].map(String.init) ?? ""
        let action = request.uri.queryParameters["action"].map(String.init) ?? ""
        let page = Self.page(request)
        let entries = try await audit.list(actor: actor, action: action, limit: Self.pageSize + 1, offset: ProductLists.offset(page: page, size: Self.pageSize))
        return try await render(.adminAudit, session: session, title: "Audit log", page: AuditPageValues(
            actor: actor, action: action, entries: entries.prefix(Self.pageSize).map(Self.auditLine), none: entries.isEmpty,
            pager: Self.pager(path: "/admin/audit", query: ["actor": actor, "action": action], page: page, hasMore: entries.count > Self.pageSize)))
    }
}
