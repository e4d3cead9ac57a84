import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukServer
import SoukStore
import SoukTestSupport
import Testing
import ZIPFoundation

/// The console's apps (create, text, media, package upload, versions, takedown), catalogs (edit,
/// review the diff, apply) and dashboard, on both databases.
@Suite struct AdminAppsConsoleTests {
    static let item: UInt64 = 6_500_000_001
    static let boundary = "souk-test-boundary-7d3f"

    /// A `multipart/form-data` body: text fields first (the CSRF token among them), then files.
    static func multipart(_ fields: [(String, String)], files: [(field: String, filename: String, data: Data)]) -> ByteBuffer {
        var body = Data()
        for (name, value) in fields {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        for file in files {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
            body.append(file.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return ByteBuffer(bytes: body)
    }

    static func upload(_ client: any TestClientProtocol, _ uri: String, session: String, csrf: String?,
                       files: [(field: String, filename: String, data: Data)]) async throws -> TestResponse {
        var fields: [(String, String)] = []
        if let csrf { fields.append(("csrf_token", csrf)) }
        return try await client.execute(uri: uri, method: .post, headers: [
            .cookie: session, .contentType: "multipart/form-data; boundary=\(boundary)",
        ], body: multipart(fields, files: files))
    }

    static func csrf(_ client: any TestClientProtocol, session: String) async throws -> String {
        try #require(WebAccountTests.csrf(in: String(buffer: try await AdminConsoleTests.get(client, "/admin/security", session: session).body)))
    }

    /// A zip of a sample package of app `item` (a folder made by `SamplePackageMaker`).
    static func packageZip(item: UInt64, version: UInt64, bundleId: String, folder: String) throws -> Data {
        let out = folder + "/pkg-\(version)"
        try SamplePackageMaker(appleItemId: item, appleVersionId: version, bundleId: bundleId, shortVersion: "2.0", bundleVersion: "20",
                               minimumOS: OSVersion("17.0")!, variantSize: 50_000, chunkSize: 16_384).write(to: out)
        let zip = folder + "/pkg-\(version).zip"
        try FileManager.default.zipItem(at: URL(fileURLWithPath: out), to: URL(fileURLWithPath: zip), shouldKeepParent: false)
        return try Data(contentsOf: URL(fileURLWithPath: zip))
    }

    @Test(arguments: TestBackend.available)
    func anOperatorCreatesAnAppUploadsAPackageAndManagesItsVersions(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let fields = ["appleItemId": String(Self.item), "bundleId": "org.example.console", "name": "Console App", "developer": "Example Ltd",
                          "access": "public"]
            // Support may look but not add; a bad id is a clear 400 that writes nothing.
            #expect(try await AdminConsoleTests.post(client, "/admin/apps", session: sam, fields).status == .forbidden)
            var bad = fields
            bad["appleItemId"] = "12x"
            let refused = try await AdminConsoleTests.post(client, "/admin/apps", session: olive, bad)
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("decimal number"))
            let created = try await AdminConsoleTests.post(client, "/admin/apps", session: olive, fields)
            #expect(created.headers[.location] == "/admin/apps/\(Self.item)?done=created")
            #expect(try await AdminConsoleTests.post(client, "/admin/apps", session: olive, fields).status == .badRequest)  // taken

            let list = String(buffer: try await AdminConsoleTests.get(client, "/admin/apps?q=console", session: sam).body)
            #expect(list.contains("Console App") && list.contains("org.example.console"))
            let supportView = String(buffer: try await AdminConsoleTests.get(client, "/admin/apps/\(Self.item)", session: sam).body)
            #expect(supportView.contains("Console App") && !supportView.contains("Upload and import") && !supportView.contains("<script"))
            let operatorView = try await AdminConsoleTests.get(client, "/admin/apps/\(Self.item)", session: olive)
            #expect(String(buffer: operatorView.body).contains("<progress"))
            #expect(operatorView.headers[.contentSecurityPolicy]?.contains("script-src 'self'; connect-src 'self'") == true)

            // Storefront text, with the audit's before and after.
            let details = try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/details", session: olive,
                                                          ["subtitle": "Made in the console", "category": "productivity",
                                                           "description": "A description.", "whatsNew": "Everything."])
            #expect(details.status == .seeOther)
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/details", session: olive,
                                                     ["category": "not-a-category"]).status == .badRequest)
            // Too long is a 400 that changes nothing.
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/details", session: olive,
                                                     ["subtitle": String(repeating: "x", count: 81)]).status == .badRequest)
            let app = try await runtime.catalog.app(appleItemId: Self.item)
            #expect(app.subtitle == "Made in the console" && app.category == "productivity")

            // A package upload: a forged token writes nothing; another app's package is refused; this app's is imported.
            let folder = try TemporaryFolder()
            let zip = try Self.packageZip(item: Self.item, version: 9_100_000_001, bundleId: "org.example.console", folder: folder.path)
            let token = try await Self.csrf(client, session: olive)
            #expect(try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: olive, csrf: "forged",
                                          files: [("package", "app.zip", zip)]).status == .forbidden)
            #expect(try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: sam, csrf: token,
                                          files: [("package", "app.zip", zip)]).status == .forbidden)
            let other = try Self.packageZip(item: 6_500_000_999, version: 9_100_000_002, bundleId: "org.example.other", folder: folder.path)
            let wrongApp = try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: olive, csrf: token,
                                                 files: [("package", "other.zip", other)])
            #expect(wrongApp.status == .unprocessableContent)
            #expect(String(buffer: wrongApp.body).contains("Package rejected: appleItemId"))
            let notZip = try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: olive, csrf: token,
                                               files: [("package", "notes.txt", Data("hello".utf8))])
            #expect(notZip.status == .unprocessableContent)
            #expect(String(buffer: notZip.body).contains("notes.txt"))
            let imported = try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: olive, csrf: token,
                                                 files: [("package", "app.zip", zip)])
            #expect(imported.headers[.location] == "/admin/apps/\(Self.item)?imported=9100000001")
            let named = String(buffer: try await AdminConsoleTests.get(client, "/admin/apps/\(Self.item)?imported=9100000001", session: olive).body)
            #expect(named.contains("Imported version 2.0 (20, AppleVersionID 9100000001)"))
            // The same package again changes nothing, and the page says so in the operator's words.
            let again = try await Self.upload(client, "/admin/apps/\(Self.item)/packages", session: olive, csrf: token,
                                              files: [("package", "app.zip", zip)])
            #expect(again.headers[.location] == "/admin/apps/\(Self.item)?done=already")
            let already = String(buffer: try await AdminConsoleTests.get(client, "/admin/apps/\(Self.item)?done=already", session: olive).body)
            #expect(already.contains("Nothing changed: that version was already imported."))
            #expect(try await runtime.catalog.versions(of: runtime.catalog.app(appleItemId: Self.item)).count == 1)
            // No upload is left behind in the work folder.
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: runtime.config.workDir)) ?? []
            #expect(!leftovers.contains { $0.hasPrefix("upload-") })

            // Withdraw and offer again; take down and reinstate.
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/versions/9100000001/withdraw", session: olive,
                                                     ["reason": "crashes"]).status == .seeOther)
            #expect(try await runtime.catalog.version(appleItemId: Self.item, appleVersionId: 9_100_000_001).withdrawnAt != nil)
            // A withdrawn version stays on the page, with the form that offers it again (the page lists every version).
            let withdrawn = String(buffer: try await AdminConsoleTests.get(client, "/admin/apps/\(Self.item)?done=withdrawn", session: olive).body)
            #expect(withdrawn.contains("Version withdrawn.") && withdrawn.contains(#"<span class="version-state">withdrawn "#)
                    && withdrawn.contains(": crashes</span>") && withdrawn.contains("/admin/apps/\(Self.item)/versions/9100000001/reinstate"))
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/versions/9100000001/reinstate", session: olive).status == .seeOther)
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/versions/123/withdraw", session: olive).status == .notFound)
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/takedown", session: olive, ["reason": "legal"]).status == .seeOther)
            #expect(try await runtime.catalog.app(appleItemId: Self.item).availability == .takenDown)
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/takedown", session: sam).status == .forbidden)
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/reinstate", session: olive).status == .seeOther)

            let actions = try await AuditLog(database: runtime.database).list(limit: 50).filter { $0.actor == "olive@example.com" }.map(\.action)
            #expect(Set(actions) == ["app.create", "app.details", "package.import", "version.withdraw", "version.reinstate", "app.takedown",
                                     "app.reinstate"])
        }
    }

    @Test(arguments: TestBackend.available)
    func mediaUploadsAreCheckedAndStored(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: { runtime, paths in
            try await AdminConsoleTests.prepare(runtime, paths)
            try await runtime.catalog.createApp(AppModel(appleItemId: Self.item, bundleId: "org.example.console", name: "Console App"))
        }) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let token = try await Self.csrf(client, session: olive)
            let icon = try PNG.encode(RGBAImage(width: 256, height: 256, fill: (10, 80, 160, 255)))
            let screenshot = try PNG.encode(RGBAImage(width: 390, height: 844, fill: (240, 240, 240, 255)))
            let notSquare = try await Self.upload(client, "/admin/apps/\(Self.item)/media", session: olive, csrf: token,
                                                  files: [("icon", "icon.png", screenshot)])
            #expect(notSquare.status == .badRequest)
            #expect(String(buffer: notSquare.body).contains("square"))
            let saved = try await Self.upload(client, "/admin/apps/\(Self.item)/media", session: olive, csrf: token,
                                              files: [("icon", "icon.png", icon), ("iphone", "1.png", screenshot), ("iphone", "2.png", screenshot)])
            #expect(saved.headers[.location] == "/admin/apps/\(Self.item)?done=media")
            let media = try #require(try await runtime.catalog.app(appleItemId: Self.item).media)
            #expect(media.icon != nil && media.screenshots(for: .iphone).count == 2)
            // A PNG over its size limit is refused, naming the file, and the media stay as they were.
            let huge = try await Self.upload(client, "/admin/apps/\(Self.item)/media", session: olive, csrf: token,
                                             files: [("icon", "huge.png", Data(count: PNG.maxFileBytes + 1))])
            #expect(huge.status == .badRequest)
            #expect(String(buffer: huge.body).contains("huge.png is larger than"))
            #expect(try await runtime.catalog.app(appleItemId: Self.item).media?.screenshots(for: .iphone).count == 2)
            // Not multipart: a clear 400.
            #expect(try await AdminConsoleTests.post(client, "/admin/apps/\(Self.item)/media", session: olive).status == .badRequest)
        }
    }

    @Test(arguments: TestBackend.available)
    func aCatalogEditIsReviewedAsADiffThenApplied(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let sam = try #require(try await WebAccountTests.webSignIn(client, email: "sam@example.com"))
            let app = CommerceCatalogSamples.readerApp
            let list = String(buffer: try await AdminConsoleTests.get(client, "/admin/catalog", session: sam).body)
            #expect(list.contains(app))
            let state = try #require(try await runtime.commerceCatalogs.store.state(app: app))
            let product = try #require(state.catalog.products.first)
            let productPage = try await AdminConsoleTests.get(client, "/admin/catalog/\(app)/products/\(product.id)", session: olive)
            #expect(productPage.status == .ok)
            #expect(try await AdminConsoleTests.get(client, "/admin/catalog/\(app)/products/nope", session: olive).status == .notFound)

            // Edit one product's prices: the review shows the diff and applies nothing yet.
            var edited = product
            edited.prices = [Price(currency: "USD", amount: 12_345)]
            let text = CatalogFile.jsonValue(edited).prettyText()
            #expect(try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/products/\(product.id)/review", session: sam,
                                                     ["product": text]).status == .forbidden)
            let review = try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/products/\(product.id)/review", session: olive,
                                                          ["product": text])
            #expect(review.status == .ok)
            let reviewHTML = String(buffer: review.body)
            #expect(reviewHTML.contains("Apply these changes") && reviewHTML.contains(product.id))
            #expect(try await runtime.commerceCatalogs.store.state(app: app)?.revision == state.revision)
            let broken = try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/products/\(product.id)/review", session: olive,
                                                          ["product": "{\"id\": "])
            #expect(broken.status == .unprocessableContent)
            #expect(String(buffer: broken.body).contains("Not applied"))

            // Apply what was reviewed (the hidden catalog and review of the review page).
            var catalog = state.catalog
            catalog.products = catalog.products.map { $0.id == product.id ? edited : $0 }
            let fields = ["catalog": CatalogFile.encode(catalog), "review": try #require(AdminCatalogReviewTests.reviewID(in: reviewHTML))]
            let applied = try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/apply", session: olive, fields)
            #expect(applied.status == .seeOther)
            let after = try #require(try await runtime.commerceCatalogs.store.state(app: app))
            #expect(after.revision == state.revision + 1)
            #expect(after.catalog.products.first { $0.id == product.id }?.prices == [Price(currency: "USD", amount: 12_345)])
            // The same review applied again is refused: a review is taken once.
            #expect(try await AdminConsoleTests.post(client, "/admin/catalog/\(app)/apply", session: olive, fields).status == .conflict)
            #expect(try await runtime.commerceCatalogs.store.state(app: app)?.revision == state.revision + 1)

            // The audit entry says what changed: the old and new prices, with their currencies, in the log and on its page.
            let entry = try #require(try await AuditLog(database: runtime.database).list(limit: 5).first { $0.action == "catalog.apply" })
            #expect(entry.actor == "olive@example.com" && entry.target == "catalog:\(app)" && entry.after?.contains(product.id) == true)
            let field = "product \(product.id): prices"
            #expect(try AdminCatalogReviewTests.object(entry.before)[field] == "4.99 USD, 4.99 EUR")
            #expect(try AdminCatalogReviewTests.object(entry.after)[field] == "123.45 USD")
            #expect(try AdminCatalogReviewTests.object(entry.before)["revision"] == String(state.revision))
            let auditPage = String(buffer: try await AdminConsoleTests.get(client, "/admin/audit?action=catalog.apply", session: sam).body)
            #expect(auditPage.contains("<code>\(field)</code>: <del>4.99 USD, 4.99 EUR</del> → <ins>123.45 USD</ins>"))
        }
    }

    @Test(arguments: TestBackend.available)
    func theDashboardDrawsTheLast30DaysWithTextAlternatives(_ backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: AdminConsoleTests.prepare) { client, runtime in
            let today = Date()
            runtime.dailyCounts.add("license.requests", at: today, count: 7)
            runtime.dailyCounts.add("license.failures", at: today, count: 2)
            runtime.dailyCounts.add("license.requests", at: today.addingTimeInterval(-86_400 * 3), count: 4)
            try await runtime.dailyCounts.flush()
            runtime.dailyCounts.add("license.requests", at: today, count: 1)  // not flushed yet: counted too
            try await runtime.dailyCounts.flush()
            runtime.dailyCounts.add("license.requests", at: today, count: 1)
            let series = try await runtime.dailyCounts.series("license.requests", days: 30, endingAt: today)
            #expect(series.count == 30 && series.last?.count == 9 && series[26].count == 4)

            let olive = try #require(try await WebAccountTests.webSignIn(client, email: "olive@example.com"))
            let html = String(buffer: try await AdminConsoleTests.get(client, "/admin", session: olive).body)
            #expect(html.contains("<svg class=\"chart\" role=\"img\""))
            #expect(html.contains("<title id=\"chart-license-requests-title\">License requests</title>"))
            #expect(html.contains("total 13 per day; highest 9"))  // the <desc>
            #expect(html.contains("Active subscriptions") && html.contains("as a table"))
        }
    }
}
