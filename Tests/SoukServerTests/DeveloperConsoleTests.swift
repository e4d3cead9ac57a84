import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import SoukApp

/// The developer console (`/developer`): who gets in (members only, two-factor as for staff), and
/// that a member reaches only their organisation's apps, catalogs and keys — every other id is 404 —
/// on both databases.
@Suite struct DeveloperConsoleTests {
    static let acmeApp: UInt64 = 6_600_000_001
    static let rivalApp: UInt64 = 6_600_000_002
    static let marketplaceApp: UInt64 = 6_600_000_003
    static let acmeCatalog = CommerceCatalogSamples.readerApp
    static let rivalCatalog = "com.rival.game"

    /// Ada (a customer), Olive (an operator, no member), Dev (owner of Acme), Mia (member of Acme),
    /// Riva (owner of Rival); an app and a catalog for each organisation and one app of the marketplace's own.
    static func prepare(_ runtime: SoukRuntime, _ paths: ServerFixture.StorePaths) async throws {
        try await AdminConsoleTests.prepare(runtime, paths)
        let hash = try PasswordHashing.hash(AdminConsoleTests.password)
        let directory = DeveloperDirectory(database: runtime.database)
        _ = try await directory.create(name: "Acme Games", id: "acme")
        _ = try await directory.create(name: "Rival Ltd", id: "rival")
        for (email, developer, role) in [("dev@example.com", "acme", DeveloperRole.owner), ("mia@example.com", "acme", .member),
                                         ("riva@example.com", "rival", .owner)] {
            let account = try await runtime.catalog.createAccount(email: email, passwordHash: hash)
            _ = try await directory.addMember(developer: developer, accountID: try account.requireID(), role: role)
        }
        for (id, bundle) in [(acmeApp, "com.acme.app"), (rivalApp, "com.rival.app"), (marketplaceApp, "org.souk.own")] {
            try await runtime.catalog.createApp(AppModel(appleItemId: id, bundleId: bundle, name: "App \(bundle)", access: .public))
        }
        #expect(try await directory.setAppDeveloper(appleItemId: acmeApp, developer: "acme"))
        #expect(try await directory.setAppDeveloper(appleItemId: rivalApp, developer: "rival"))
        _ = try await runtime.commerceCatalogs.apply(CommerceCatalogSamples.consumables(app: rivalCatalog, count: 2))
        #expect(try await directory.setCatalogDeveloper(app: acmeCatalog, developer: "acme"))
        #expect(try await directory.setCatalogDeveloper(app: rivalCatalog, developer: "rival"))
    }

    static func get(_ client: any TestClientProtocol, _ uri: String, session: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .get, headers: [.cookie: session])
    }

    /// The session's CSRF token, from the enrolment page (open to every member).
    static func csrf(_ client: any TestClientProtocol, session: String) async throws -> String {
        WebAccountTests.csrf(in: String(buffer: try await get(client, "/developer/security", session: session).body)) ?? ""
    }

    static func post(_ client: any TestClientProtocol, _ uri: String, session: String, _ fields: [String: String] = [:],
                     csrf: String? = nil) async throws -> TestResponse {
        let token: String
        if let csrf { token = csrf } else { token = try await Self.csrf(client, session: session) }
        var headers = OAuthTests.formHeaders
        headers[.cookie] = session
        var body = fields
        body["csrf_token"] = token
        return try await client.execute(uri: uri, method: .post, headers: headers, body: OAuthTests.form(body))
    }

    @Test(arguments: TestBackend.available)
    func onlyMembersGetInAndTwoFactorIsRequiredAsForStaff(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, configure: { $0.consoleRequiresTwoFactor = true }, prepare: Self.prepare) { client, runtime in
            let signedOut = try await client.execute(uri: "/developer/apps/\(Self.acmeApp)", method: .get)
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location] == "/signin?next=/developer/apps/\(Self.acmeApp)")

            // A customer and staff who are no members get the console's refusal, whatever the page.
            for email in ["ada@example.com", "olive@example.com"] {
                let session = try #require(try await WebAccountTests.webSignIn(client, email: email))
                for path in ["/developer", "/developer/security", "/developer/apps/\(Self.acmeApp)", "/developer/keys"] {
                    let refused = try await Self.get(client, path, session: session)
                    #expect(refused.status == .forbidden, "\(email) \(path)")
                    #expect(String(buffer: refused.body).contains("members of a developer organisation"))
                }
            }

            // A member without two-factor sign-in sees only the enrolment page.
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            for path in ["/developer", "/developer/apps/\(Self.acmeApp)", "/developer/catalog/\(Self.acmeCatalog)", "/developer/keys"] {
                let held = try await Self.get(client, path, session: dev)
                #expect(held.status == .seeOther, "\(path)")
                #expect(held.headers[.location] == "/developer/security", "\(path)")
            }
            #expect(try await Self.post(client, "/developer/apps/\(Self.acmeApp)/details", session: dev, ["subtitle": "x"]).headers[.location]
                    == "/developer/security")
            let enrolment = String(buffer: try await Self.get(client, "/developer/security", session: dev).body)
            #expect(enrolment.contains("needs two-factor sign-in") && !enrolment.contains(#"href="/developer/keys""#))
            let uriStart = try #require(enrolment.range(of: "otpauth://totp/"))
            let uri = String(enrolment[uriStart.lowerBound...].prefix { $0 != "<" }).replacingOccurrences(of: "&amp;", with: "&")
            let base32 = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
            let secret = try #require(Base32.decode(base32))

            // A forged form is refused; the right code turns it on and opens the console.
            #expect(try await Self.post(client, "/developer/security/confirm", session: dev, ["code": TOTP.code(secret: secret, at: Date())],
                                        csrf: "forged").status == .forbidden)
            let confirmed = try await Self.post(client, "/developer/security/confirm", session: dev, ["code": TOTP.code(secret: secret, at: Date())])
            #expect(confirmed.status == .ok)
            let home = try await Self.get(client, "/developer", session: dev)
            #expect(home.status == .ok)
            let html = String(buffer: home.body)
            #expect(html.contains("Acme Games") && html.contains("/developer/apps/\(Self.acmeApp)") && html.contains(Self.acmeCatalog))
            #expect(!html.contains(String(Self.rivalApp)) && !html.contains(Self.rivalCatalog) && !html.contains(String(Self.marketplaceApp)))
            let entries = try await AuditLog(database: runtime.database).list()
            #expect(entries.map(\.action) == ["account.totp-enable"] && entries.first?.actor == "dev@example.com")

            // A new session asks for the code before any page, and returns there after it.
            let again = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            let code = try await Self.get(client, "/developer/keys", session: again)
            #expect(code.headers[.location] == "/signin/code?next=/developer/keys")
        }
    }

    @Test(arguments: TestBackend.available)
    func everyPageRefusesAnotherOrganisationsIdsWith404(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            let riva = try #require(try await WebAccountTests.webSignIn(client, email: "riva@example.com"))
            let rivalKey = try await DeveloperDirectory(database: runtime.database)
                .createKey(developer: "rival", name: "CI", scopes: [.packagesWrite], createdBy: .cli(user: "test")).key
            let token = try await Self.csrf(client, session: dev)
            let folder = try TemporaryFolder()
            for app in [Self.rivalApp, Self.marketplaceApp, 6_600_000_999] {
                #expect(try await Self.get(client, "/developer/apps/\(app)", session: dev).status == .notFound, "\(app)")
                for action in ["details", "versions/9000000001/withdraw", "versions/9000000001/reinstate"] {
                    #expect(try await Self.post(client, "/developer/apps/\(app)/\(action)", session: dev, ["subtitle": "taken"], csrf: token).status
                            == .notFound, "\(app) \(action)")
                }
                let zip = try AdminAppsConsoleTests.packageZip(item: app, version: 9_200_000_000 + app % 10, bundleId: "com.rival.app", folder: folder.path)
                for (action, field) in [("packages", "package"), ("media", "icon")] {
                    #expect(try await AdminAppsConsoleTests.upload(client, "/developer/apps/\(app)/\(action)", session: dev, csrf: token,
                                                                   files: [(field, "x.zip", zip)]).status == .notFound, "\(app) \(action)")
                }
            }
            for catalog in [Self.rivalCatalog, "com.nobody.app"] {
                #expect(try await Self.get(client, "/developer/catalog/\(catalog)", session: dev).status == .notFound)
                for action in ["review", "apply", "webhooks"] {
                    #expect(try await Self.post(client, "/developer/catalog/\(catalog)/\(action)", session: dev,
                                                ["catalog": "{}", "url": "https://taken.example.com/"], csrf: token).status
                            == .notFound, "\(catalog) \(action)")
                }
                for page in ["webhooks", "grants", "purchases"] {
                    #expect(try await Self.get(client, "/developer/catalog/\(catalog)/\(page)", session: dev).status == .notFound, "\(catalog) \(page)")
                }
            }
            let rivalHook = try await WebhookStore(database: runtime.database).add(app: Self.rivalCatalog, url: "https://rival.example.com/hook",
                                                                                   secret: "rival-secret-0123456789")
            #expect(try await Self.post(client, "/developer/webhooks/\(rivalHook.id.uuidString.lowercased())/delete", session: dev, csrf: token).status
                    == .notFound)
            #expect(try await Self.post(client, "/developer/webhooks/\(UUID().uuidString.lowercased())/delete", session: dev, csrf: token).status
                    == .notFound)
            // The statements and sales pages have no organisation id: they show only the member's own.
            let sales = String(buffer: try await Self.get(client, "/developer/sales", session: dev).body)
            #expect(!sales.contains("com.rival") && !sales.contains(String(Self.rivalApp)))
            #expect(try await Self.post(client, "/developer/keys/\(rivalKey.id.uuidString.lowercased())/revoke", session: dev, csrf: token).status
                    == .notFound)
            // The owner of the other organisation reaches its own; nothing of it changed or was recorded.
            #expect(try await Self.get(client, "/developer/apps/\(Self.rivalApp)", session: riva).status == .ok)
            #expect(try await Self.get(client, "/developer/apps/\(Self.acmeApp)", session: riva).status == .notFound)
            #expect(try await runtime.catalog.app(appleItemId: Self.rivalApp).subtitle.isEmpty)
            #expect(try await DeveloperDirectory(database: runtime.database).key(rivalKey.id)?.revokedAt == nil)
            #expect(try await WebhookStore(database: runtime.database).endpoints(app: Self.rivalCatalog).map(\.id) == [rivalHook.id])
            #expect(try await AuditLog(database: runtime.database).list().isEmpty)
        }
    }

    @Test(arguments: TestBackend.available)
    func aMemberEditsTextUploadsAVersionThatWaitsInReviewAndAppliesTheCatalog(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            let details = try await Self.post(client, "/developer/apps/\(Self.acmeApp)/details", session: mia,
                                              ["subtitle": "By Acme", "category": "games", "description": "Fun.", "whatsNew": "All."])
            #expect(details.headers[.location] == "/developer/apps/\(Self.acmeApp)?done=details")
            #expect(try await Self.post(client, "/developer/apps/\(Self.acmeApp)/details", session: mia,
                                        ["subtitle": String(repeating: "x", count: 81)]).status == .badRequest)
            #expect(try await runtime.catalog.app(appleItemId: Self.acmeApp).subtitle == "By Acme")

            // The upload: a forged token writes nothing; this app's package becomes a version in review.
            let folder = try TemporaryFolder()
            let zip = try AdminAppsConsoleTests.packageZip(item: Self.acmeApp, version: 9_300_000_001, bundleId: "com.acme.app", folder: folder.path)
            let token = try await Self.csrf(client, session: mia)
            #expect(try await AdminAppsConsoleTests.upload(client, "/developer/apps/\(Self.acmeApp)/packages", session: mia, csrf: "forged",
                                                           files: [("package", "app.zip", zip)]).status == .forbidden)
            let other = try AdminAppsConsoleTests.packageZip(item: Self.rivalApp, version: 9_300_000_002, bundleId: "com.rival.app", folder: folder.path)
            let wrong = try await AdminAppsConsoleTests.upload(client, "/developer/apps/\(Self.acmeApp)/packages", session: mia, csrf: token,
                                                               files: [("package", "other.zip", other)])
            #expect(wrong.status == .unprocessableContent && String(buffer: wrong.body).contains("Package rejected: appleItemId"))
            let uploaded = try await AdminAppsConsoleTests.upload(client, "/developer/apps/\(Self.acmeApp)/packages", session: mia, csrf: token,
                                                                  files: [("package", "app.zip", zip)])
            #expect(uploaded.headers[.location] == "/developer/apps/\(Self.acmeApp)?imported=9300000001")
            let version = try await runtime.catalog.version(appleItemId: Self.acmeApp, appleVersionId: 9_300_000_001)
            #expect(version.reviewState == .inReview)
            let page = String(buffer: try await Self.get(client, "/developer/apps/\(Self.acmeApp)?imported=9300000001", session: mia).body)
            #expect(page.contains("it is in review") && page.contains(#"<span class="version-state">in review</span>"#))

            // A rejection's reason is shown to the developer.
            version.reviewState = .rejected
            version.reviewReason = "Crashes at launch"
            try await version.save(on: runtime.database.db)
            let rejected = String(buffer: try await Self.get(client, "/developer/apps/\(Self.acmeApp)", session: mia).body)
            #expect(rejected.contains("rejected: Crashes at launch"))

            // Withdraw and offer again.
            #expect(try await Self.post(client, "/developer/apps/\(Self.acmeApp)/versions/9300000001/withdraw", session: mia,
                                        ["reason": "old"]).status == .seeOther)
            #expect(try await runtime.catalog.version(appleItemId: Self.acmeApp, appleVersionId: 9_300_000_001).withdrawnAt != nil)
            #expect(try await Self.post(client, "/developer/apps/\(Self.acmeApp)/versions/9300000001/reinstate", session: mia).status == .seeOther)
            #expect(try await Self.post(client, "/developer/apps/\(Self.acmeApp)/versions/1/withdraw", session: mia).status == .notFound)

            // Their own catalog's form cannot carry another organisation's catalog: refused (422), nothing kept or applied.
            let rivalText = CatalogFile.encode(CommerceCatalogSamples.consumables(app: Self.rivalCatalog, count: 3))
            let rivalRevision = try #require(try await runtime.commerceCatalogs.store.state(app: Self.rivalCatalog)).revision
            let smuggled = try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/review", session: mia, ["catalog": rivalText])
            #expect(smuggled.status == .unprocessableContent && AdminCatalogReviewTests.reviewID(in: String(buffer: smuggled.body)) == nil)
            #expect(try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/apply", session: mia,
                                        ["catalog": rivalText, "review": UUID().uuidString]).status == .conflict)
            #expect(try await runtime.commerceCatalogs.store.state(app: Self.rivalCatalog)?.revision == rivalRevision)
            // Over 1 MiB of catalog: the page that says so (413).
            let large = try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/review", session: mia,
                                            ["catalog": String(repeating: " ", count: (1 << 20) + 10) + "{}"])
            #expect(large.status == .contentTooLarge && String(buffer: large.body).contains("larger than 1 MiB"))

            // The catalog: review shows the diff, apply takes the reviewed text.
            let revision = try #require(try await runtime.commerceCatalogs.store.state(app: Self.acmeCatalog)).revision
            let text = AdminCatalogReviewTests.catalogText(monthlyAt: 549)
            let review = try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/review", session: mia, ["catalog": text])
            #expect(review.status == .ok)
            let reviewID = try #require(AdminCatalogReviewTests.reviewID(in: String(buffer: review.body)))
            #expect(try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/apply", session: mia,
                                        ["catalog": AdminCatalogReviewTests.catalogText(monthlyAt: 1), "review": reviewID]).status == .conflict)
            let again = try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/review", session: mia, ["catalog": text])
            let fresh = try #require(AdminCatalogReviewTests.reviewID(in: String(buffer: again.body)))
            let applied = try await Self.post(client, "/developer/catalog/\(Self.acmeCatalog)/apply", session: mia, ["catalog": text, "review": fresh])
            #expect(applied.headers[.location] == "/developer/catalog/\(Self.acmeCatalog)?done=applied")
            let state = try #require(try await runtime.commerceCatalogs.store.state(app: Self.acmeCatalog))
            #expect(state.revision == revision + 1 && state.catalog.products[0].prices[0] == Price(currency: "USD", amount: 549))
            // The catalog stays the organisation's.
            #expect(try await DeveloperDirectory(database: runtime.database).owner(catalog: Self.acmeCatalog) == "acme")

            let entries = try await AuditLog(database: runtime.database).list(limit: 50)
            #expect(entries.allSatisfy { $0.actor == "mia@example.com" })
            #expect(Set(entries.map(\.action)) == ["app.details", "package.import", "version.withdraw", "version.reinstate", "catalog.apply"])
            #expect(entries.first { $0.action == "package.import" }?.after?.contains("in_review") == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func withoutReviewAMembersUploadIsReleasedAtOnceWhateverTheBodyLimit(_ backend: TestBackend) async throws {
        // A body limit far below the package: the console's uploads have their own (streamed to disk).
        try await ServerFixture.withRuntime(backend, configure: { $0.reviewNewVersions = false; $0.maxBodyBytes = 4096 },
                                            prepare: Self.prepare) { client, runtime in
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            let folder = try TemporaryFolder()
            let zip = try AdminAppsConsoleTests.packageZip(item: Self.acmeApp, version: 9_300_000_011, bundleId: "com.acme.app", folder: folder.path)
            let uploaded = try await AdminAppsConsoleTests.upload(client, "/developer/apps/\(Self.acmeApp)/packages", session: dev,
                                                                  csrf: try await Self.csrf(client, session: dev), files: [("package", "app.zip", zip)])
            #expect(uploaded.status == .seeOther)
            #expect(try await runtime.catalog.version(appleItemId: Self.acmeApp, appleVersionId: 9_300_000_011).reviewState == .released)
        }
    }

    @Test(arguments: TestBackend.available)
    func ownersMakeListAndRevokeKeysShownOnceMembersMayNot(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: Self.prepare) { client, runtime in
            let dev = try #require(try await WebAccountTests.webSignIn(client, email: "dev@example.com"))
            let mia = try #require(try await WebAccountTests.webSignIn(client, email: "mia@example.com"))
            #expect(try await Self.get(client, "/developer/keys", session: mia).status == .forbidden)
            #expect(try await Self.post(client, "/developer/keys", session: mia, ["name": "CI", "scope-packages-write": "on"]).status == .forbidden)
            #expect(try await Self.post(client, "/developer/keys", session: dev, ["name": "CI"]).status == .badRequest)  // no scope

            let made = try await Self.post(client, "/developer/keys", session: dev,
                                           ["name": "CI", "scope-packages-write": "on", "scope-catalog-write": "on"])
            #expect(made.status == .ok)
            let html = String(buffer: made.body)
            let secretStart = try #require(html.range(of: #"<code id="new-key">"#))
            let secret = String(html[secretStart.upperBound...].prefix { $0 != "<" })
            #expect(secret.hasPrefix("sk_"))
            let directory = DeveloperDirectory(database: runtime.database)
            let key = try #require(try await directory.authenticate(secret: secret))
            #expect(key.developerID == "acme" && key.scopes == [.packagesWrite, .catalogWrite])

            // The list shows its name, scopes and last four characters, never the key again.
            let list = String(buffer: try await Self.get(client, "/developer/keys", session: dev).body)
            #expect(list.contains("catalog:write, packages:write") && list.contains("…\(secret.suffix(4))") && !list.contains(secret))

            #expect(try await Self.post(client, "/developer/keys/\(key.id.uuidString.lowercased())/revoke", session: mia).status == .forbidden)
            let revoked = try await Self.post(client, "/developer/keys/\(key.id.uuidString.lowercased())/revoke", session: dev)
            #expect(revoked.headers[.location] == "/developer/keys?done=revoked")
            #expect(try await directory.authenticate(secret: secret) == nil)
            let actions = try await AuditLog(database: runtime.database).list().map(\.action)
            #expect(Set(actions) == ["developer.key-create", "developer.key-revoke"])
            #expect(try await AuditLog(database: runtime.database).list().allSatisfy { !($0.after ?? "").contains(secret) })
        }
    }
}
