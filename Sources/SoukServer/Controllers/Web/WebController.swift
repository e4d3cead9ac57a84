import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The website's account pages: sign in, sign out, sign up (when enabled) and the account page
/// with the person's devices. Sessions live in the database; every form carries a CSRF token.
struct WebController<Context: WebSessionRequestContext> {
    let config: SoukConfig
    let catalog: CatalogStore
    let tokens: TokenStore
    let sessions: WebSessionStore
    let passwords: PasswordSignIn
    let keys: SoukKeys
    let pages: Pages
    let licenses: LicenseStore
    /// What the person bought from the marketplace (the account page's Purchases).
    let orders: MarketplaceOrderStore
    let subscriptions: MarketplaceSubscriptionStore

    /// Double-submit CSRF cookie for the signed-out forms (sign in, sign up).
    static var formCookie: String { "souk_form" }

    func addRoutes(to router: Router<Context>) {
        router.get("signin", use: signInPage)
        router.post("signin", use: signIn)
        router.post("signout", use: signOut)
        router.get("signup", use: signUpPage)
        router.post("signup", use: signUp)
        let signedIn = router.group("account").add(middleware: WebSessionMiddleware(sessions: sessions))
        signedIn.get(use: account)
        signedIn.post("devices/sign-out", use: signOutDevices)
        signedIn.post("installs/release", use: releaseInstall)
    }

    var secure: Bool { config.publicURL.hasPrefix("https://") }

    // MARK: Signed out

    @Sendable func signInPage(_ request: Request, context: Context) async throws -> Response {
        // `next` is the console's name for the same thing (`/signin?next=/admin/people`).
        let returnTo = SignInReturn.path((request.uri.queryParameters["return"] ?? request.uri.queryParameters["next"]).map(String.init))
        if try await sessions.session(for: request) != nil { return WebPage.seeOther(returnTo ?? "/account") }
        // Fixed wording per flag: nothing from the query string is shown.
        let notice: String? = if request.uri.queryParameters["deleted"] != nil {
            "Your account was deleted. Thank you for shopping here."
        } else if request.uri.queryParameters["reset"] == "done" {
            "Your new password is set. Sign in with it."
        } else if request.uri.queryParameters["signed-out"] == "everywhere" {
            "Signed out everywhere: every browser and every device has to sign in again."
        } else {
            nil
        }
        return try await signInForm(email: "", error: nil, status: .ok, returnTo: returnTo, notice: notice)
    }

    @Sendable func signIn(_ request: Request, context: Context) async throws -> Response {
        guard let form = try await checkedForm(request, context: context) else {
            return try await signInForm(email: "", error: "Your sign-in form expired. Please try again.", status: .forbidden)
        }
        let email = form["email"] ?? ""
        let returnTo = SignInReturn.path(form["return"])
        let client = ClientAddressReader(trustedProxies: config.trustedProxies).key(for: request, context: context)
        switch try await passwords.attempt(email: email, password: form.values["password"] ?? "", client: client) {
        case .throttled(let wait):
            return try await signInForm(email: email, error: "Too many attempts. Try again in \(PasswordSignIn.minutes(wait)).",
                                        status: .tooManyRequests, extraHeaders: [.retryAfter: String(wait)], returnTo: returnTo)
        case .refused:
            return try await signInForm(email: email, error: "The email or password is not right.", status: .unauthorized, returnTo: returnTo)
        case .signedIn(let account):
            return try await startSession(for: account, returnTo: returnTo)
        }
    }

    @Sendable func signUpPage(_ request: Request, context: Context) async throws -> Response {
        guard config.signUpEnabled else { throw Problem(.notFound, "Sign-up is not open on this marketplace.") }
        return try await signUpForm(email: "", error: nil, status: .ok)
    }

    @Sendable func signUp(_ request: Request, context: Context) async throws -> Response {
        guard config.signUpEnabled else { throw Problem(.notFound, "Sign-up is not open on this marketplace.") }
        guard let form = try await checkedForm(request, context: context) else {
            return try await signUpForm(email: "", error: "The form expired. Please try again.", status: .forbidden)
        }
        let email = form["email"] ?? ""
        let hash: String
        do {
            hash = try await PasswordHasher.hash(form.values["password"] ?? "")
        } catch let rule as PasswordRuleError {
            return try await signUpForm(email: email, error: rule.description, status: .badRequest)
        }
        do {
            return try await startSession(for: try await catalog.people.create(email: email, passwordHash: hash))
        } catch let error as CatalogError {
            // A taken address gets the same calm answer as a bad one, without confirming who has an account.
            let message = if case .invalid = error { "That is not an email address." } else { "That email address cannot be used." }
            return try await signUpForm(email: email, error: message, status: .badRequest)
        }
    }

    // MARK: Signed in

    /// The Purchases list: apps bought (paid or refunded), newest first (plans are under Memberships).
    func purchaseLines(_ accountID: UUID) async throws -> [AccountPageValues.Purchase] {
        var lines: [(date: Date, line: AccountPageValues.Purchase)] = []
        var names: [UInt64: String] = [:]  // one read per app, however many orders name it
        for order in try await orders.orders(account: accountID) where order.status == .paid || order.status == .refunded {
            if names[order.appleItemId] == nil {
                names[order.appleItemId] = (try? await catalog.appRecord(appleItemId: order.appleItemId).name) ?? "App \(order.appleItemId)"
            }
            let name = names[order.appleItemId] ?? "App \(order.appleItemId)"
            let price = Price(currency: order.price.currency, amount: order.amountPaid ?? order.price.amount).formatted
            let status = order.status == .refunded ? "refunded \(order.refundedAt.map(WebPage.format) ?? "")" : "bought \(order.paidAt.map(WebPage.format) ?? "")"
            lines.append((order.paidAt ?? order.createdAt, .init(item: name, price: price, status: status)))
        }
        return lines.sorted { $0.date > $1.date }.map(\.line)
    }

    @Sendable func account(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireWebSession()
        let accountID = session.account.id
        let devices = try await tokens.devices(accountID: accountID)
        // Active installs: devices with a live license (what the device limit counts).
        let now = Date()
        let live = try await licenses.list(accountID: accountID, limit: 1000).filter { $0.isLive(at: now) }
        let installs = Dictionary(grouping: live, by: \.deviceId).sorted { $0.key < $1.key }.map { deviceId, records in
            AccountPageValues.Install(deviceId: deviceId, apps: String(Set(records.map(\.appleItemId)).count),
                                      expires: WebPage.format(records.map(\.expiresAt).max() ?? now))
        }
        let limit = config.licensing.deviceLimit(for: session.account)
        let plans = try await subscriptions.subscriptions(account: accountID).filter { !$0.pending }.map { plan in
            let running = [.active, .gracePeriod, .billingRetry, .cancelled].contains(plan.state) && plan.expiresAt > now
            return AccountPageValues.Plan(id: plan.id.uuidString.lowercased(), name: plan.productId + (plan.sandbox ? " (sandbox)" : ""),
                                          price: plan.price.formatted + " a period", status: WebPage.planStatus(plan),
                                          canCancel: running && plan.willRenew,
                                          canResume: running && !plan.willRenew && plan.state != .billingRetry)
        }
        var names: [UInt64: String] = [:]
        var receipts: [AccountPageValues.Receipt] = []
        for receipt in try await Receipt.all(account: accountID, orders: orders, plans: subscriptions) {
            let item: String
            switch receipt.item {
            case .app(let appleItemId):
                if names[appleItemId] == nil { names[appleItemId] = (try? await catalog.appRecord(appleItemId: appleItemId).name) ?? "App \(appleItemId)" }
                item = names[appleItemId] ?? ""
            case .plan(let productId):
                item = productId
            }
            receipts.append(.init(date: WebPage.format(receipt.date), item: item, kind: receipt.kind,
                                  amount: (receipt.amount < 0 ? "−" : "") + Price(currency: receipt.currency, amount: abs(receipt.amount)).formatted))
        }
        var page = AccountPageValues(
            email: session.account.email, csrfToken: session.csrfToken, plans: plans, purchases: try await purchaseLines(accountID),
            receipts: receipts,
            devices: devices.map { .init(clientId: $0.clientId, signedIn: WebPage.format($0.signedInAt), lastUsed: $0.lastUsedAt.map(WebPage.format) ?? "never") },
            installs: installs, installCount: installs.count, deviceLimit: limit > 0 ? String(limit) : nil,
            accountLicenseHours: config.licensing.accountHours, publicLicenseDays: config.licensing.publicHours / 24)
        if let notice = AccountPagesController<Context>.notice(request.uri.queryParameters["notice"].map(String.init)) {
            if notice.isError { page.problem = notice.text } else { page.notice = notice.text }
        }
        if request.uri.queryParameters["signed-out"] != nil { page.notice = "Signed out." }
        if request.uri.queryParameters["released"] != nil { page.notice = "Device released: its app licenses end at their next renewal." }
        let layout = PublicLayout(title: "Your account", marketplace: try await marketplaceName())
        return pages.response(.account, PageContext(layout: layout, page: page))
    }

    /// Signs out one device (`client_id`) or, without one, every device of the account.
    @Sendable func signOutDevices(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireWebSession()
        let form = try await sessions.checkedForm(request, session: session, context: context)
        try await tokens.revokeAll(accountID: session.account.id, clientId: form["client_id"])
        return WebPage.seeOther("/account?signed-out=1")
    }

    /// Releases one device: its licenses for this account are revoked, freeing a place under the
    /// device limit; the apps on it stop at their next renewal.
    @Sendable func releaseInstall(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireWebSession()
        let form = try await sessions.checkedForm(request, session: session, context: context)
        guard let deviceId = form["device_id"], !deviceId.isEmpty else { throw Problem(.badRequest, "Say which device to release.") }
        try await licenses.revoke(.init(accountID: session.account.id, deviceId: deviceId), reason: "released by the account holder")
        return WebPage.seeOther("/account?released=1")
    }

    @Sendable func signOut(_ request: Request, context: Context) async throws -> Response {
        guard let cookie = request.cookies[WebSessionStore.cookieName]?.value, let session = try await sessions.find(cookie) else {
            return WebPage.seeOther("/signin")
        }
        _ = try await sessions.checkedForm(request, session: session, context: context)
        try await sessions.delete(cookie)
        var response = WebPage.seeOther("/signin")
        response.headers[.setCookie] = Cookie(name: WebSessionStore.cookieName, value: "", maxAge: 0, path: "/", secure: secure,
                                              httpOnly: true, sameSite: .lax).description
        return response
    }

    // MARK: Helpers

    private func startSession(for account: AccountRecord, returnTo: String? = nil) async throws -> Response {
        let token = try await sessions.create(accountID: account.id)
        // With TOTP on, the password is the first step: the code step marks the session for the console.
        let next = returnTo ?? "/account"
        var response = WebPage.seeOther(account.totpEnabled ? ConsoleGate.url(ConsoleGate.secondFactorPath, next: next) : next)
        response.headers[.setCookie] = Cookie(name: WebSessionStore.cookieName, value: token, maxAge: Int(sessions.lifetime), path: "/",
                                              secure: secure, httpOnly: true, sameSite: .lax).description
        return response
    }

    /// The form, when its CSRF field matches the form cookie; nil otherwise.
    private func checkedForm(_ request: Request, context: Context) async throws -> FormBody? {
        guard case .success(let form) = try await FormBody.read(request, context: context),
              let cookie = request.cookies[Self.formCookie]?.value, let field = form["csrf_token"],
              ConstantTime.equal(cookie, field) else { return nil }
        return form
    }

    private func signInForm(email: String, error: String?, status: HTTPResponse.Status, extraHeaders: HTTPFields = [:],
                            returnTo: String? = nil, notice: String? = nil) async throws -> Response {
        try await formPage(.signIn, title: "Sign in", action: "/signin", email: email, error: error, status: status, extraHeaders: extraHeaders) {
            $0.hidden = returnTo.map { [HiddenField(name: "return", value: $0)] } ?? []
            $0.signUp = config.signUpEnabled
            $0.notice = notice
        }
    }

    private func signUpForm(email: String, error: String?, status: HTTPResponse.Status) async throws -> Response {
        try await formPage(.signUp, title: "Create an account", action: "/signup", email: email, error: error, status: status)
    }

    /// A sign-in or sign-up form with a fresh CSRF token, also set as the form's cookie.
    private func formPage(_ template: PageTemplate, title: String, action: String, email: String, error: String?,
                          status: HTTPResponse.Status, extraHeaders: HTTPFields = [:],
                          _ more: (inout SignInValues) -> Void = { _ in }) async throws -> Response {
        let csrf = OpaqueToken.generate(.csrf)
        var values = SignInValues(title: title, marketplace: try await marketplaceName(), action: action, csrfToken: csrf, email: email,
                                  error: error)
        more(&values)
        var headers = extraHeaders
        headers[.setCookie] = Cookie(name: Self.formCookie, value: csrf, maxAge: 1800, path: "/", secure: secure,
                                     httpOnly: true, sameSite: .strict).description
        return pages.response(template, values, status: status, extraHeaders: headers)
    }

    private func marketplaceName() async throws -> String {
        try await catalog.marketplaceName(keys: keys)
    }

}
