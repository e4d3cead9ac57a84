import SoukStore
import Testing

@Suite struct SegmentedLRUTests {
    @Test func aFullCacheEvictsTheLeastRecentlyUsedEntryInsteadOfEmptying() {
        var cache = SegmentedLRU<Int, String>(capacity: 3)
        for key in 1...3 { cache.insert("v\(key)", forKey: key) }
        cache.insert("v4", forKey: 4)
        #expect(cache.count == 3)
        #expect(cache.peek(1) == nil)
        #expect(cache.keysInEvictionOrder == [2, 3, 4])
        #expect(cache.statistics.evictions == 1)
    }

    @Test func aHitProtectsAnEntryFromTheNextEvictions() {
        var cache = SegmentedLRU<Int, Int>(capacity: 5)
        for key in 1...5 { cache.insert(key, forKey: key) }
        #expect(cache.value(forKey: 1) == 1)
        // 1 was used again: the entries seen once go first, oldest first.
        #expect(cache.keysInEvictionOrder == [2, 3, 4, 5, 1])
        for key in 6...9 { cache.insert(key, forKey: key) }
        #expect(cache.peek(1) == 1)
        #expect(Set(cache.keysInEvictionOrder) == [1, 6, 7, 8, 9])
    }

    @Test func theProtectedSegmentKeepsItsMostRecentlyUsedAndDemotesTheRest() {
        // Capacity 5: four protected entries at most.
        var cache = SegmentedLRU<Int, Int>(capacity: 5)
        for key in 1...5 { cache.insert(key, forKey: key) }
        for key in 1...5 { _ = cache.value(forKey: key) }
        // 1 was the protected segment's least recently used: back on probation, evicted first.
        #expect(cache.keysInEvictionOrder == [1, 2, 3, 4, 5])
        _ = cache.value(forKey: 2)
        #expect(cache.keysInEvictionOrder == [1, 3, 4, 5, 2])
        cache.insert(6, forKey: 6)
        #expect(cache.peek(1) == nil)
        #expect(cache.keysInEvictionOrder == [6, 3, 4, 5, 2])
    }

    @Test func capacityIsNeverExceeded() {
        var cache = SegmentedLRU<Int, Int>(capacity: 100)
        var generator = SystemRandomNumberGenerator()
        for step in 0..<10_000 {
            let key = Int.random(in: 0..<400, using: &generator)
            if cache.value(forKey: key) == nil { cache.insert(step, forKey: key) }
            if step % 7 == 0 { cache.removeValue(forKey: Int.random(in: 0..<400, using: &generator)) }
            #expect(cache.count <= 100)
        }
        let keys = cache.keysInEvictionOrder
        #expect(keys.count == cache.count)
        #expect(Set(keys).count == keys.count)
        for key in keys { #expect(cache.peek(key) != nil) }
    }

    @Test func aRemovedEntryIsGoneAtOnceAndTheOthersStayInOrder() {
        var cache = SegmentedLRU<String, Int>(capacity: 4)
        for (n, key) in ["a", "b", "c", "d"].enumerated() { cache.insert(n, forKey: key) }
        _ = cache.value(forKey: "b")
        #expect(cache.removeValue(forKey: "a") == 0)
        #expect(cache.removeValue(forKey: "b") == 1)
        #expect(cache.removeValue(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.keysInEvictionOrder == ["c", "d"])
        cache.insert(9, forKey: "e")
        #expect(cache.keysInEvictionOrder == ["c", "d", "e"])
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.keysInEvictionOrder.isEmpty)
        cache.insert(1, forKey: "f")
        #expect(cache.value(forKey: "f") == 1)
    }

    @Test func anEntryItsLookupRefusesCountsAsAMissAndIsRemoved() {
        var cache = SegmentedLRU<Int, Int>(capacity: 4)
        cache.insert(10, forKey: 1)
        #expect(cache.value(forKey: 1, where: { $0 > 10 }) == nil)
        #expect(cache.peek(1) == nil)
        #expect(cache.value(forKey: 2) == nil)
        cache.insert(20, forKey: 2)
        #expect(cache.value(forKey: 2) == 20)
        #expect(cache.statistics == CacheStatistics(entries: 1, capacity: 4, hits: 1, misses: 2, evictions: 0))
    }

    @Test func updatingInPlaceKeepsTheOrder() {
        var cache = SegmentedLRU<Int, Int>(capacity: 3)
        for key in 1...3 { cache.insert(key, forKey: key) }
        #expect(cache.update(forKey: 1) { $0 = 100 })
        #expect(!cache.update(forKey: 7) { $0 = 100 })
        #expect(cache.keysInEvictionOrder == [1, 2, 3])
        #expect(cache.peek(1) == 100)
        cache.insert(5, forKey: 2)
        #expect(cache.keysInEvictionOrder == [1, 3, 2])
    }

    @Test func aCacheOfOneHoldsTheLastEntry() {
        var cache = SegmentedLRU<Int, Int>(capacity: 1)
        cache.insert(1, forKey: 1)
        #expect(cache.value(forKey: 1) == 1)
        cache.insert(2, forKey: 2)
        #expect(cache.keysInEvictionOrder == [2])
    }
}
