import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// People: search, a person's page, promotional grants, disable/enable, signing out and reset links.
/// Every action on a person passes `authorize` (SoukCore's `StaffScope`) first.
extension AdminController {
    /// `/admin/people?q=`: accounts by email substring or exact id, 50 a page.
    @Sendable func people(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        let page = Self.page(request)
        let found = try await PeopleDirectory(database: runtime.database).search(query, limit: Self.pageSize + 1,
                                                                                 offset: ProductLists.offset(page: page, size: Self.pageSize))
        return try await render(.adminPeople, session: session, title: "People", [
            "query": query,
            "people": try found.prefix(Self.pageSize).map { account in
                ["id": try account.requireID().uuidString.lowercased(), "email": account.email, "role": account.role.rawValue,
                 "status": account.disabled ? "disabled" : "active", "created": account.createdAt.map(WebController<Context>.format) ?? "-"]
            },
            "none": found.isEmpty,
            "pager": Self.pager(path: "/admin/people", query: ["q": query], page: page, hasMore: found.count > Self.pageSize),
        ])
    }

    /// `/admin/people/<id>`: the account's facts, devices, live licenses, purchases, orders and grants.
    @Sendable func person(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let account = try await requirePerson(context)
        let notice = request.uri.queryParameters["done"].map { Self.notices[String($0)] ?? "" }
        return try await personPage(session: session, account: account, notice: notice, error: nil)
    }

    static var notices: [String: String] {
        ["granted": "Entitlement granted.", "revoked": "Grant revoked.", "disabled": "Account disabled and signed out everywhere.",
         "enabled": "Account enabled.", "signed-out": "Signed out everywhere: every browser and device must sign in again."]
    }

    func requirePerson(_ context: Context) async throws -> AccountModel {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
              let account = try await runtime.catalog.account(id: id) else {
            throw Problem(.notFound, "No account has this id.")
        }
        return account
    }

    /// - Parameter resetLink: a reset link just made, shown this once.
    func personPage(session: ConsoleSession, account: AccountModel, notice: String?, error: String?,
                    resetLink: (url: String, expires: String)? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let id = try account.requireID()
        let at = now()
        let csrf = session.csrfToken
        let canRefund = try allows(.refund, session: session, on: account)
        let format = WebController<Context>.format
        let devices = try await runtime.tokens.devices(accountID: id).map { device in
            ["clientId": device.clientId, "signedIn": format(device.signedInAt), "lastUsed": device.lastUsedAt.map(format) ?? "never"]
        }
        let licenses = try await LicenseStore(database: runtime.database).list(accountID: id, limit: 1000).filter { $0.isLive(at: at) }
            .map { ["license": String($0.licenseId), "app": String($0.appleItemId), "device": $0.deviceId, "expires": format($0.expiresAt)] }
        let purchases = try await runtime.purchases.list(account: id, limit: 200).map { purchase -> [String: Any] in
            ["app": purchase.app, "product": purchase.productId, "store": purchase.store.rawValue, "status": purchase.status.rawValue,
             "date": format(purchase.purchaseDate ?? purchase.createdAt), "revoked": purchase.revokedAt.map(format) ?? "",
             // A Google Play purchase is refunded at Google from here (StoreRefunds); other stores refund in their own consoles.
             "refundable": canRefund && purchase.store == .googlePlay && purchase.status == .granted && purchase.revokedAt == nil,
             "subscription": purchase.productType == .autoRenewable || purchase.expiresDate != nil,
             "payment": purchase.paymentId.uuidString.lowercased(), "person": id.uuidString.lowercased(), "csrfToken": csrf]
        }
        let orders = try await MarketplaceOrderStore(database: runtime.database).orders(account: id).map { order in
            ["app": String(order.appleItemId), "price": Price(currency: order.price.currency, amount: order.amountPaid ?? order.price.amount).formatted,
             "status": order.status.rawValue + (order.amountRefunded.map { $0 > 0 && order.status == .paid ? ", \(Price(currency: order.price.currency, amount: $0).formatted) refunded" : "" } ?? ""),
             "date": format(order.paidAt ?? order.createdAt), "processor": order.processor,
             "refundable": order.status == .paid && canRefund, "order": order.id.uuidString.lowercased(),
             "person": id.uuidString.lowercased(), "csrfToken": csrf] as [String: Any]
        }
        let plans = try await MarketplaceSubscriptionStore(purchases: runtime.purchases).subscriptions(account: id).filter { !$0.pending }
            .map { plan -> [String: Any] in
                ["id": plan.id.uuidString.lowercased(), "product": plan.productId + (plan.sandbox ? " (sandbox)" : ""),
                 "price": plan.price.formatted, "status": WebController<Context>.planStatus(plan), "started": format(plan.startedAt),
                 "processor": plan.processor, "refundable": canRefund && plan.state != .expired && plan.state != .revoked,
                 "person": id.uuidString.lowercased(), "csrfToken": csrf]
            }
        let grants = try await EntitlementGrantStore(purchases: runtime.purchases).list(account: id).reversed().map { grant -> [String: Any] in
            ["id": grant.id.uuidString.lowercased(), "app": grant.app, "entitlement": grant.entitlementId,
             "environment": grant.environment.rawValue, "starts": format(grant.startsAt), "until": grant.expiresAt.map(format) ?? "until revoked",
             "reason": grant.reason ?? "", "state": grant.revokedAt != nil ? "revoked" : grant.isActive(at: at) ? "active" : "ended",
             "revocable": grant.revokedAt == nil && grant.isActive(at: at) && (try? allows(.revoke(app: grant.app), session: session, on: account)) == true,
             "csrfToken": csrf, "person": id.uuidString.lowercased()]
        }
        let events = try await timeline(account: account)
        var values: [String: Any] = [
            "id": id.uuidString.lowercased(), "email": account.email, "personRole": account.role.rawValue,
            "status": account.disabled ? "disabled" : "active", "disabled": account.disabled,
            "environment": account.sandbox ? "sandbox" : "production", "created": account.createdAt.map(format) ?? "-",
            "twoFactor": account.totpEnabled ? "on" : "off",
            "devices": devices, "licenses": licenses, "purchases": purchases, "orders": orders, "plans": plans, "grants": grants,
            "timeline": events, "timelineCount": String(events.count),
            "apps": try await CommerceCatalogStore(database: runtime.database).apps()
                .filter { (try? allows(.grant(app: $0), session: session, on: account)) == true }.map { ["app": $0] },
            "canDisable": try allows(account.disabled ? .enable : .disable, session: session, on: account),
            "canGrant": try allows(.grant, session: session, on: account),
            "canReset": try allows(.resetPassword, session: session, on: account),
            "canSignOut": try allows(.signOut, session: session, on: account),
            "canExtend": try allows(.extendSubscriptions, session: session, on: account),
        ]
        values["notice"] = notice
        values["error"] = error
        if let resetLink { values["resetLink"] = ["url": resetLink.url, "expires": resetLink.expires] }
        return try await render(.adminPerson, session: session, title: account.email, values, status: status)
    }

    /// Grants an entitlement: app, entitlement, reason, optional until. Support grants an app's own
    /// entitlements to customers; a `marketplace` grant (a membership) is an operator's.
    @Sendable func grant(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let id = try account.requireID()
        let app = (form["app"] ?? "").trimmingCharacters(in: .whitespaces)
        try await authorize(.grant(app: app), session: session, on: account)
        let entitlement = (form["entitlement"] ?? "").trimmingCharacters(in: .whitespaces)
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespaces)
        let untilText = (form["until"] ?? "").trimmingCharacters(in: .whitespaces)
        func refuse(_ message: String) async throws -> Response {
            try await personPage(session: session, account: account, notice: nil, error: message, status: .badRequest)
        }
        guard !reason.isEmpty else { return try await refuse("Say why the entitlement is granted.") }
        var until: Date?
        if !untilText.isEmpty {
            guard let parsed = Self.parseUntil(untilText) else {
                return try await refuse("Until must be an RFC 3339 date (2027-01-01) or date-time (2027-01-01T00:00:00Z).")
            }
            until = parsed
        }
        guard let catalog = try await runtime.commerceCatalogs.state(app: app) else {
            return try await refuse("\(app.isEmpty ? "That app" : app) has no in-app catalog.")
        }
        let made: EntitlementGrant
        do {
            made = try await EntitlementGrantStore(purchases: runtime.purchases)
                .grant(account: id, catalog: catalog.catalog, entitlement: entitlement, until: until, reason: reason)
        } catch let error as EntitlementGrantError {
            return try await refuse(error.description)
        }
        try await audit.record(actor: session.actor, action: .entitlementGrant, target: "account:\(id.uuidString.lowercased())",
                               after: made.auditFields)
        return WebController<Context>.seeOther("/admin/people/\(id.uuidString.lowercased())?done=granted")
    }

    /// Revokes one promotional grant of the person (a `marketplace` grant: operators only).
    @Sendable func revokeGrant(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let id = try account.requireID()
        try await authorize(.revoke, session: session, on: account)
        let grants = EntitlementGrantStore(purchases: runtime.purchases)
        guard let grantID = context.parameters.get("grant").flatMap(UUID.init(uuidString:)),
              let before = try await grants.grant(grantID), before.accountId == id else {
            throw Problem(.notFound, "This person has no such grant.")
        }
        try await authorize(.revoke(app: before.app), session: session, on: account)
        if let after = try await grants.revoke(grantID), before.revokedAt == nil, after.revokedAt != nil {
            try await audit.record(actor: session.actor, action: .entitlementRevoke, target: "account:\(id.uuidString.lowercased())",
                                   before: before.auditFields, after: after.auditFields)
        }
        return WebController<Context>.seeOther("/admin/people/\(id.uuidString.lowercased())?done=revoked")
    }

    /// Disables the account (operators, on customer and support accounts): its tokens and web sessions end at once.
    @Sendable func disable(_ request: Request, context: Context) async throws -> Response {
        try await setDisabled(true, request, context: context)
    }

    /// Enables a disabled account (operators, on customer and support accounts).
    @Sendable func enable(_ request: Request, context: Context) async throws -> Response {
        try await setDisabled(false, request, context: context)
    }

    private func setDisabled(_ disabled: Bool, _ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let id = try account.requireID()
        try await authorize(disabled ? .disable : .enable, session: session, on: account)
        if try await PeopleDirectory(database: runtime.database).setDisabled(disabled, account: id) {
            if disabled {
                try await runtime.tokens.revokeAll(accountID: id)
                try await sessions.deleteAll(accountID: id)
            }
            try await audit.record(actor: session.actor, action: disabled ? .accountDisable : .accountEnable,
                                   target: "account:\(id.uuidString.lowercased())",
                                   before: ["email": account.email, "disabled": String(!disabled)],
                                   after: ["email": account.email, "disabled": String(disabled)])
        }
        return WebController<Context>.seeOther("/admin/people/\(id.uuidString.lowercased())?done=\(disabled ? "disabled" : "enabled")")
    }

    /// Ends every browser session and device token of the person at once.
    @Sendable func signOutPerson(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let id = try account.requireID()
        try await authorize(.signOut, session: session, on: account)
        try await runtime.tokens.revokeAll(accountID: id)
        try await sessions.deleteAll(accountID: id)
        try await audit.record(actor: session.actor, action: .accountSignOut, target: "account:\(id.uuidString.lowercased())",
                               before: ["email": account.email], after: ["email": account.email, "sessions": "signed out"])
        return WebController<Context>.seeOther("/admin/people/\(id.uuidString.lowercased())?done=signed-out")
    }

    /// Makes a password reset link (`PasswordResetLinks`), shown once on the answer, where the person
    /// chooses their own password. The person's sessions and tokens end and their old password stops
    /// working at once. The console never sets a password (`souk accounts reset-password` does).
    @Sendable func resetPassword(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let id = try account.requireID()
        try await authorize(.resetPassword, session: session, on: account)
        let link = try await PasswordResetLinks(database: runtime.database, now: now).make(account: id)
        try await runtime.tokens.revokeAll(accountID: id)
        try await sessions.deleteAll(accountID: id)
        let expires = WebController<Context>.format(link.expiresAt)
        try await audit.record(actor: session.actor, action: .accountResetPassword, target: "account:\(id.uuidString.lowercased())",
                               before: ["email": account.email],
                               after: ["email": account.email, "password": "reset link until \(expires)", "sessions": "signed out"])
        return try await personPage(session: session, account: account,
                                    notice: "Reset link made. The account was signed out everywhere and its old password no longer works.",
                                    error: nil, resetLink: (runtime.config.publicURL + PasswordResetController<Context>.path(token: link.token), expires))
    }

    /// An RFC 3339 date-time, or a date (midnight UTC).
    static func parseUntil(_ text: String) -> Date? {
        RFC3339.parse(text) ?? (text.count == 10 ? RFC3339.parse(text + "T00:00:00Z") : nil)
    }
}
