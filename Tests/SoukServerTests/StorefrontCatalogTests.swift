import Foundation
import SoukCore
import SoukStore
import Testing

/// The storefront's in-memory lists and search index (`StorefrontCatalog`), at the size the issue
/// names: 100,000 apps. Correctness only; timings are in docs/web.md.
@Suite struct StorefrontCatalogTests {
    static let fillerWords = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                              "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]
    static let categories = ["books", "games", "music", "travel", "weather"]

    /// 100,000 filler apps (ids 1…100,000) plus four that the assertions look for (ids above 1,000,000).
    static func bigCatalog() -> StorefrontCatalog {
        var apps: [StorefrontApp] = []
        apps.reserveCapacity(100_004)
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 1...100_000 {
            let word = fillerWords[index % fillerWords.count], other = fillerWords[(index / 20) % fillerWords.count]
            apps.append(StorefrontApp(appleItemId: UInt64(index), name: "\(word.capitalized) \(other) \(index)",
                                      subtitle: "The \(other) app", developer: "Studio \(index % 500)",
                                      description: "A \(word) for every \(other).", category: categories[index % categories.count],
                                      latestRelease: day.addingTimeInterval(Double(index % 1_000) * 60)))
        }
        apps.append(StorefrontApp(appleItemId: 1_000_001, name: "Zebra Notes", developer: "Acme", description: "Notes.", category: "books",
                                  featuredOrder: 2, latestRelease: day.addingTimeInterval(86_400 * 30)))
        apps.append(StorefrontApp(appleItemId: 1_000_002, name: "Planner", subtitle: "Plans", developer: "Zebra Labs",
                                  featuredOrder: 1))
        apps.append(StorefrontApp(appleItemId: 1_000_003, name: "Budget", description: "Counts zebra stripes and more."))
        apps.append(StorefrontApp(appleItemId: 1_000_004, name: "Café Crème", developer: "Bäckerei Ünal"))
        return StorefrontCatalog(apps)
    }

    @Test func searchRanksNameAboveDeveloperAboveDescriptionAt100000Apps() {
        let catalog = Self.bigCatalog()
        #expect(catalog.count == 100_004)
        #expect(catalog.search("zebra") == [1_000_001, 1_000_002, 1_000_003])
        #expect(catalog.search("ZEB") == [1_000_001, 1_000_002, 1_000_003])  // prefix, any case
        #expect(catalog.search("zebra notes") == [1_000_001])  // every word must match
        #expect(catalog.search("cafe creme") == [1_000_004])  // diacritics folded in the index…
        #expect(catalog.search("Crè") == [1_000_004])  // …and in the query
        #expect(catalog.search("unal") == [1_000_004])
        #expect(catalog.search("") == [] && catalog.search("  —  ") == [] && catalog.search("xylophone") == [])
        // A common word: every app with it (5,000 + 5,000 − 250 names, descriptions only repeat them), by name.
        let kilo = catalog.search("kilo")
        #expect(kilo.count == 9_750)
        let firstDescriptionOnly = kilo.firstIndex { !(catalog.apps[$0]?.name.lowercased().contains("kilo") ?? false) }
        #expect(kilo.prefix(firstDescriptionOnly ?? kilo.count).allSatisfy { catalog.apps[$0]?.name.lowercased().contains("kilo") == true })
        let names = kilo.prefix(200).compactMap { catalog.apps[$0]?.sortKey }
        #expect(names == names.sorted())
        // The exact name comes first.
        #expect(catalog.search("Kilo alpha 10").first == 10)
    }

    /// The words of a query are matched rarest first; the answer must not depend on that order: a
    /// word many apps have ("studio") beside a rare one answers the same in either order (only a
    /// name that starts with the query as typed moves up).
    @Test func aQueryAnswersTheSameWhateverItsWordsOrderAndHowCommonEachIs() {
        let catalog = Self.bigCatalog()
        let rareFirst = catalog.search("12345 studio")
        #expect(rareFirst == catalog.search("studio 12345"))
        #expect(!rareFirst.isEmpty)
        #expect(rareFirst.first == 12_345)
        // Every match has both words; "12345" matches names by whole word or prefix ("123450"…).
        #expect(Set(rareFirst) == Set(catalog.search("12345")).intersection(catalog.search("studio")))
        // The same apps either way; the order differs only by the names that start with the query as typed.
        #expect(Set(catalog.search("kilo alpha")) == Set(catalog.search("alpha kilo")))
        #expect(catalog.search("kilo alpha").first == 10 && catalog.search("alpha kilo").first == 1_000)
        #expect(catalog.search("kilo xylophone") == [] && catalog.search("xylophone kilo") == [])
    }

    @Test func listsAreOrderedAndChangesAreAppliedAppByApp() {
        var catalog = Self.bigCatalog()
        let byName = catalog.byName.compactMap { catalog.apps[$0]?.sortKey }
        #expect(byName.count == 100_004 && byName == byName.sorted())
        #expect(catalog.newest.first == 1_000_001)
        #expect(catalog.newest.suffix(3).allSatisfy { catalog.apps[$0]?.latestRelease == nil })
        #expect(catalog.featured.map(\.appleItemId) == [1_000_002, 1_000_001])
        #expect(catalog.categoryCounts["books"] == 20_001 && catalog.categoryCounts["games"] == 20_000)
        #expect(catalog.categoryCounts["weather"] == 20_000 && catalog.categoryCounts["health-fitness"] == nil)
        #expect(catalog.byCategory["books"]?.contains(1_000_001) == true)

        // Renamed, recategorised, unfeatured: found by its new name only, in its new place.
        catalog.apply([1_000_001: StorefrontApp(appleItemId: 1_000_001, name: "Aardvark Quokka", developer: "Acme", category: "travel")])
        #expect(catalog.search("zebra") == [1_000_002, 1_000_003])
        #expect(catalog.search("quokka") == [1_000_001])
        #expect(catalog.byName.first == 1_000_001)
        #expect(catalog.byCategory["books"]?.contains(1_000_001) == false && catalog.byCategory["travel"]?.contains(1_000_001) == true)
        #expect(catalog.featured.map(\.appleItemId) == [1_000_002])
        #expect(catalog.newest.first != 1_000_001)
        // Taken down (removed) and added.
        catalog.apply([1_000_003: nil, 1_000_005: StorefrontApp(appleItemId: 1_000_005, name: "Zebra Crossing")])
        #expect(catalog.search("zebra") == [1_000_005, 1_000_002])
        #expect(catalog.count == 100_004 && catalog.byName.count == 100_004 && catalog.newest.count == 100_004)
        let after = catalog.byName.compactMap { catalog.apps[$0]?.sortKey }
        #expect(after == after.sorted())
    }

    @Test func wordsAreFoldedAndSplit() {
        #expect(StorefrontCatalog.words("Hello, World! 2go") == ["hello", "world", "2go"])
        #expect(StorefrontCatalog.words("Crème brûlée — ÉTÉ") == ["creme", "brulee", "ete"])
        #expect(StorefrontCatalog.fold("  Café   Crème ") == "cafe creme")
    }
}
