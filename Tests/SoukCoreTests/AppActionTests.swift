import Foundation
import SoukCore
import Testing

/// `AppAction`: what one person may do with one app, in the order the rule checks.
@Suite struct AppActionTests {
    static func version(_ id: UInt64, minimum: String, daysAgo: Double) -> CatalogVersion {
        CatalogVersion(appleVersionId: id, bundleVersion: "\(id)", shortVersionString: "1.\(id)", platforms: [.iOS],
                       minimumOS: [.iOS: OSVersion(minimum)!], releaseDate: Date(timeIntervalSinceNow: -daysAgo * 86_400))
    }

    static let paid = CatalogApp(appleItemId: 1, bundleId: "org.example.one", access: .public, availability: .available,
                                 versions: [version(101, minimum: "17.0", daysAgo: 2), version(102, minimum: "17.4", daysAgo: 1)],
                                 pricing: AppPricing(prices: [Price(currency: "USD", amount: 299)]))

    @Test func availabilityThenDeviceThenPaymentThenWhatIsInstalled() {
        let device17 = AppAction.Device(platform: .iOS, osVersion: OSVersion("16.0")!)
        let empty = CatalogApp(appleItemId: 2, bundleId: "b", access: .public, availability: .available, versions: [])
        #expect(AppAction.decide(empty, verdict: .open, sells: true, device: .init()) == AppAction(.unavailable, why: .noVersion))
        // Nothing is sold that the device cannot run.
        #expect(AppAction.decide(Self.paid, verdict: .purchaseRequired, sells: true, device: device17) == AppAction(.unavailable, why: .incompatibleDevice))
        #expect(AppAction.decide(Self.paid, verdict: .purchaseRequired, sells: false, device: .init()) == AppAction(.unavailable, why: .notForSale))
        #expect(AppAction.decide(Self.paid, verdict: .purchaseRequired, sells: true, device: .init()) == AppAction(.buy, why: .purchaseRequired))
        var included = Self.paid
        included.pricing = AppPricing(requiresEntitlement: "member")
        #expect(AppAction.decide(included, verdict: .subscriptionExpired, sells: true, device: .init()) == AppAction(.subscribe, why: .subscriptionExpired))
        #expect(AppAction.decide(Self.paid, verdict: .open, sells: false, device: .init()) == AppAction(.install))
        #expect(AppAction.decide(Self.paid, verdict: .open, sells: false, device: .init(installed: true)) == AppAction(.open))
        let onIOS17 = AppAction.Device(platform: .iOS, osVersion: OSVersion("17.4")!, installedVersionId: 101)
        #expect(AppAction.decide(Self.paid, verdict: .open, sells: false, device: onIOS17) == AppAction(.update))
        // 17.0 runs only 101: it is current there.
        let onIOS170 = AppAction.Device(platform: .iOS, osVersion: OSVersion("17.0")!, installedVersionId: 101)
        #expect(AppAction.decide(Self.paid, verdict: .open, sells: false, device: onIOS170) == AppAction(.open))
        #expect(AppAction.decide(Self.paid, verdict: .open, sells: false, device: .init(installedVersionId: 102)) == AppAction(.open))
    }
}
