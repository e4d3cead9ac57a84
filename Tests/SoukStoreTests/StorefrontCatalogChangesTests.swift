import Foundation
import SoukCore
@testable import SoukStore
import Testing

/// A `StorefrontCatalog` changed app by app answers exactly as one built from scratch from the
/// same apps: its search index's overlay, stale slots and rebuilds, and its packed records'
/// rewrites, change nothing a page sees.
@Suite struct StorefrontCatalogChangesTests {
    static let words = ["garden", "gardener", "weather", "notes", "café", "crème", "budget", "chess", "maps", "music"]
    static let queries = ["garden", "gard", "notes weather", "cafe", "CRÈ", "chess maps", "ga", "m", "app 7", "zzz"]

    static func app(_ id: UInt64, round: Int) -> StorefrontApp {
        let seed = Int(id) * 7 + round * 13
        func word(_ k: Int) -> String { words[(seed + k) % words.count] }
        return StorefrontApp(appleItemId: id, name: "\(word(0).capitalized) \(word(3)) \(id % 4)", subtitle: "The \(word(1)) app",
                             developer: id % 3 == 0 ? "Studio \(word(2))" : "", description: "Keeps \(word(4)) and \(word(5)) in order.",
                             category: ["books", "games", nil][Int(id) % 3], featuredOrder: id % 5 == 0 ? -Int(id) : nil,
                             latestRelease: id % 6 == 0 ? nil : Date(timeIntervalSince1970: 1_700_000_000 + Double(seed % 50) * 3_600),
                             iconSHA256: id % 2 == 0 ? String(repeating: "ab", count: 32) : nil,
                             mediaJSON: id % 4 == 0 ? #"{"icon":{"sha256":"\#(id)"}}"# : nil,
                             pricing: id % 7 == 0 ? AppPricing(prices: [Price(currency: "EUR", amount: Int(id))]) : .free)
    }

    static func expectSame(_ changed: StorefrontCatalog, _ current: [UInt64: StorefrontApp]) {
        let fresh = StorefrontCatalog(Array(current.values))
        #expect(changed.count == fresh.count)
        #expect(changed.byName == fresh.byName)
        #expect(changed.newest == fresh.newest)
        #expect(changed.byCategory == fresh.byCategory)
        #expect(changed.categoryCounts == fresh.categoryCounts)
        #expect(changed.featured == fresh.featured)
        for query in queries { #expect(changed.search(query) == fresh.search(query), "query \(query)") }
        for (id, app) in current {
            var listed = app
            listed.description = ""  // never kept
            #expect(changed.apps[id] == listed)
        }
    }

    @Test func changesAppliedOneByOneAnswerAsAFreshBuild() {
        var current: [UInt64: StorefrontApp] = [:]
        for id in UInt64(1)...60 { current[id] = Self.app(id, round: 0) }
        // A tiny overlay, so that rebuilds (and the slots they free) happen every few changes.
        var catalog = StorefrontCatalog(Array(current.values), rebuildAfter: 40)
        Self.expectSame(catalog, current)
        for round in 1...12 {
            var changes: [UInt64: StorefrontApp?] = [:]
            for id in UInt64(1)...70 where (Int(id) + round) % 5 == 0 {
                let removed = (Int(id) + round) % 3 == 0
                changes[id] = removed ? .some(nil) : .some(Self.app(id, round: round))
                current[id] = removed ? nil : Self.app(id, round: round)
            }
            catalog.apply(changes)
            Self.expectSame(catalog, current)
        }
    }

    @Test func packedCatalogAppsKeepEveryFieldThroughReplacementsAndRewrites() {
        func app(_ id: UInt64, _ round: Int) -> CatalogApp {
            let version = { (vid: UInt64, os: String) in
                CatalogVersion(appleVersionId: vid, bundleVersion: "\(round).\(vid % 10)", shortVersionString: "1.\(round)",
                               platforms: vid % 2 == 0 ? [.iOS, .iPadOS] : [.iOS], minimumOS: [.iOS: OSVersion(os)!],
                               releaseDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(vid)))
            }
            return CatalogApp(appleItemId: id, bundleId: "org.example.packed.\(id).\(String(repeating: "x", count: round))",
                              access: id % 2 == 0 ? .public : .account, availability: Availability.allCases[Int(id) % Availability.allCases.count],
                              versions: [version(id * 10 + 1, "17.0"), version(id * 10 + 2, "17.4")],
                              withdrawnVersions: id % 3 == 0 ? [version(id * 10 + 3, "18.0")] : [],
                              pricing: AppPricing(prices: id % 4 == 0 ? [Price(currency: "USD", amount: 99)] : [],
                                                  requiresEntitlement: id % 5 == 0 ? "premium" : nil))
        }
        var packed = PackedCatalogApps()
        var expected: [UInt64: CatalogApp] = [:]
        // Enough replacements (each a longer bundle id) that the byte array is rewritten.
        for round in 0..<40 {
            for id in UInt64(1)...400 where round == 0 || (Int(id) + round) % 2 == 0 {
                let value = (Int(id) + round) % 9 == 0 ? nil : app(id, round * 2_000)
                packed[id] = value
                expected[id] = value
            }
        }
        #expect(packed.count == expected.count)
        for id in UInt64(0)...401 { #expect(packed[id] == expected[id]) }
    }
}
