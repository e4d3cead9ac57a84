import Foundation
import SQLKit
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// A signed App Store purchase posted to the intake records where it was bought: its `storefront`
/// (ISO 3166-1 alpha-3, as Apple signs it) kept as the alpha-2 country metrics filter by.
@Suite struct PurchaseCountryIntakeTests {
    typealias F = CommercePurchaseFixture

    @Test(arguments: TestBackend.available)
    func theSignedStorefrontIsRecordedAsThePurchasesCountry(backend: TestBackend) async throws {
        try await F.with(backend) { f in
            var german = f.transaction("reader.monthly", id: "2000000000000101")
            german.storefront = "DEU"
            german.storefrontId = "143443"
            #expect(try await f.buy("reader.monthly", as: f.alice, german).status.code < 300)
            // The test chain signs the storefront Apple's samples carry: the United States.
            #expect(try await f.buy("reader.pass.30d", as: f.bob, f.transaction("reader.pass.30d", id: "2000000000000102")).status.code < 300)
            let rows = try await f.runtime.database.sql.raw("SELECT transaction_id, country FROM purchases ORDER BY transaction_id").all()
            let countries = try rows.map { (try $0.decode(column: "transaction_id", as: String.self), try $0.decode(column: "country", as: String?.self)) }
            #expect(countries.map(\.0) == ["2000000000000101", "2000000000000102"] && countries.map(\.1) == ["DE", "US"], "\(countries)")
        }
    }
}
