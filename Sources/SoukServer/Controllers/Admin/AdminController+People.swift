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
        let found = try await services.directory.searchRecords(query, limit: Self.pageSize + 1,
                                                                                        offset: ProductLists.offset(page: page, size: Self.pageSize))
        return try await render(.adminPeople, session: session, title: "People", page: PeopleListValues(
            query: query,
            people: found.prefix(Self.pageSize).map { account in
                .init(id: account.id.uuidString.lowercased(), email: account.email, role: account.role.rawValue,
                      status: account.disabled ? "disabled" : "active", created: account.createdAt.map(WebPage.format) ?? "-")
            },
            none: found.isEmpty,
            pager: Self.pager(path: "/admin/people", query: ["q": query], page: page, hasMore: found.count > Self.pageSize)))
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

    func requirePerson(_ context: Context) async throws -> AccountRecord {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)),
              let account = try await services.directory.account(id: id) else {
            throw Problem(.notFound, "No account has this id.")
        }
        return account
    }

    /// - Parameter resetLink: a reset link just made, shown this once.
    func personPage(session: ConsoleSession, account: AccountRecord, notice: String?, error: String?,
                    resetLink: (url: String, expires: String)? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let id = account.id
        let at = now()
        let canRefund = allows(.refund, session: session, on: account)
        let format = WebPage.format
        let devices = try await services.tokens.devices(accountID: id).map { device in
            PersonValues.Device(clientId: device.clientId, signedIn: format(device.signedInAt), lastUsed: device.lastUsedAt.map(format) ?? "never")
        }
        let licenses = try await services.licenses.list(accountID: id, limit: 1000).filter { $0.isLive(at: at) }
            .map { PersonValues.License(license: String($0.licenseId), app: String($0.appleItemId), device: $0.deviceId, expires: format($0.expiresAt)) }
        let purchases = try await services.purchases.list(account: id, limit: 200).map { purchase in
            PersonValues.Purchase(
                app: purchase.app, product: purchase.productId, store: purchase.store.rawValue, status: purchase.status.rawValue,
                date: format(purchase.purchaseDate ?? purchase.createdAt), revoked: purchase.revokedAt.map(format) ?? "",
                refundable: canRefund && purchase.store == .googlePlay && purchase.status == .granted && purchase.revokedAt == nil,
                subscription: purchase.productType == .autoRenewable || purchase.expiresDate != nil,
                payment: purchase.paymentId.uuidString.lowercased())
        }
        let orders = try await services.orders.orders(account: id).map { order in
            PersonValues.Order(
                app: String(order.appleItemId), price: Price(currency: order.price.currency, amount: order.amountPaid ?? order.price.amount).formatted,
                status: order.status.rawValue + (order.amountRefunded.map { $0 > 0 && order.status == .paid ? ", \(Price(currency: order.price.currency, amount: $0).formatted) refunded" : "" } ?? ""),
                date: format(order.paidAt ?? order.createdAt), processor: order.processor,
                refundable: order.status == .paid && canRefund, order: order.id.uuidString.lowercased())
        }
        let plans = try await services.subscriptions.subscriptions(account: id).filter { !$0.pending }.map { plan in
            PersonValues.Plan(
                id: plan.id.uuidString.lowercased(), product: plan.productId + (plan.sandbox ? " (sandbox)" : ""),
                price: plan.price.formatted, status: WebPage.planStatus(plan), started: format(plan.startedAt),
                processor: plan.processor, refundable: canRefund && plan.state != .expired && plan.state != .revoked)
        }
        let grants = try await services.grants.list(account: id).reversed().map { grant in
            PersonValues.Grant(
                id: grant.id.uuidString.lowercased(), app: grant.app, entitlement: grant.entitlementId,
                environment: grant.environment.rawValue, starts: format(grant.startsAt), until: grant.expiresAt.map(format) ?? "until revoked",
                reason: grant.reason ?? "", state: grant.revokedAt != nil ? "revoked" : grant.isActive(at: at) ? "active" : "ended",
                revocable: grant.revokedAt == nil && grant.isActive(at: at) && allows(.revoke(app: grant.app), session: session, on: account))
        }
        let events = try await timeline(account: account)
        let values = PersonValues(
            id: id.uuidString.lowercased(), person: id.uuidString.lowercased(), email: account.email, personRole: account.role.rawValue,
            status: account.disabled ? "disabled" : "active", disabled: account.disabled,
            environment: account.sandbox ? "sandbox" : "production", created: account.createdAt.map(format) ?? "-",
            twoFactor: account.totpEnabled ? "on" : "off",
            devices: devices, licenses: licenses, purchases: purchases, orders: orders, plans: plans, grants: grants,
            timeline: events, timelineCount: String(events.count),
            apps: try await services.commerceCatalogs.store.apps()
                .filter { allows(.grant(app: $0), session: session, on: account) }.map { PersonValues.App(app: $0) },
            canDisable: allows(account.disabled ? .enable : .disable, session: session, on: account),
            canGrant: allows(.grant, session: session, on: account),
            canReset: allows(.resetPassword, session: session, on: account),
            canSignOut: allows(.signOut, session: session, on: account),
            canExtend: allows(.extendSubscriptions, session: session, on: account),
            notice: notice, error: error, resetLink: resetLink.map { PersonValues.Reset(url: $0.url, expires: $0.expires) })
        return try await render(.adminPerson, session: session, title: account.email, page: values, status: status)
    }

    /// Grants an entitlement: app, entitlement, reason, optional until. Support grants an app's own
    /// entitlements to customers; a `marketplace` grant (a membership) is an operator's.
    @Sendable func grant(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let app = (form["app"] ?? "").trimmingCharacters(in: .whitespaces)
        let entitlement = (form["entitlement"] ?? "").trimmingCharacters(in: .whitespaces)
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespaces)
        let untilText = (form["until"] ?? "").trimmingCharacters(in: .whitespaces)
        let until = untilText.isEmpty ? nil : Self.parseUntil(untilText)
        let inputError = reason.isEmpty ? "Say why the entitlement is granted."
            : !untilText.isEmpty && until == nil ? "Until must be an RFC 3339 date (2027-01-01) or date-time (2027-01-01T00:00:00Z)." : nil
        do {
            try await peopleOperations.grant(actor: Self.staffActor(session), to: account, .init(
                app: app, entitlement: entitlement, until: until, reason: reason, inputError: inputError))
        } catch let error as PeopleOperationError {
            guard let message = Self.pageError(error) else { throw Self.problem(error) }
            return try await personPage(session: session, account: account, notice: nil, error: message, status: .badRequest)
        }
        return WebPage.seeOther("/admin/people/\(account.id.uuidString.lowercased())?done=granted")
    }

    /// Revokes one promotional grant of the person (a `marketplace` grant: operators only).
    @Sendable func revokeGrant(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        guard let grantID = context.parameters.get("grant").flatMap(UUID.init(uuidString:)) else {
            try await authorize(.revoke, session: session, on: account)
            throw Problem(.notFound, "This person has no such grant.")
        }
        do {
            try await peopleOperations.revokeGrant(actor: Self.staffActor(session), id: grantID, of: account)
        } catch let error as PeopleOperationError {
            throw Self.problem(error)
        }
        return WebPage.seeOther("/admin/people/\(account.id.uuidString.lowercased())?done=revoked")
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
        do {
            try await peopleOperations.setDisabled(disabled, actor: Self.staffActor(session), person: account)
        } catch let error as PeopleOperationError {
            throw Self.problem(error)
        }
        return WebPage.seeOther("/admin/people/\(account.id.uuidString.lowercased())?done=\(disabled ? "disabled" : "enabled")")
    }

    /// Ends every browser session and device token of the person at once.
    @Sendable func signOutPerson(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        do {
            try await peopleOperations.signOut(actor: Self.staffActor(session), person: account)
        } catch let error as PeopleOperationError {
            throw Self.problem(error)
        }
        return WebPage.seeOther("/admin/people/\(account.id.uuidString.lowercased())?done=signed-out")
    }

    /// Makes a password reset link (`PasswordResetLinks`), shown once on the answer, where the person
    /// chooses their own password. The person's sessions and tokens end and their old password stops
    /// working at once. The console never sets a password (`souk accounts reset-password` does).
    @Sendable func resetPassword(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let link: PasswordResetLinks.Made
        do {
            link = try await peopleOperations.makeResetLink(actor: Self.staffActor(session), person: account)
        } catch let error as PeopleOperationError {
            throw Self.problem(error)
        }
        return try await personPage(session: session, account: account,
                                    notice: "Reset link made. The account was signed out everywhere and its old password no longer works.",
                                    error: nil, resetLink: (services.publicURL + PasswordResetController<Context>.path(token: link.token),
                                                            WebPage.format(link.expiresAt)))
    }

    /// An RFC 3339 date-time, or a date (midnight UTC).
    static func parseUntil(_ text: String) -> Date? {
        RFC3339.parse(text) ?? (text.count == 10 ? RFC3339.parse(text + "T00:00:00Z") : nil)
    }
}
