/// A map of at most `capacity` entries that, when full, evicts the entry least recently used,
/// protecting those used more than once: a segmented LRU (Karedla, Love and Wherry, "Caching
/// Strategies to Improve Disk System Performance", IEEE Computer, 1994).
///
/// A new entry starts at the head of the probationary segment. A hit there promotes it to the head
/// of the protected segment (four fifths of the capacity); when that overflows, its least recently
/// used entry goes back to the head of probation, with a second chance. A full map evicts the tail
/// of probation (of the protected segment only when probation is empty), so a crowd of people seen
/// once does not push out the people seen again and again.
///
/// Every operation is O(1), whatever the number of entries: a dictionary from key to slot, and the
/// two segments as doubly linked lists threaded by index through an array of links beside the array
/// of slots (12 bytes an entry, so moving an entry touches little memory). Nothing scans the entries,
/// and once the arrays have grown nothing is allocated per entry. A removed entry's slot is refilled
/// by the last one, so the arrays hold exactly the entries.
///
/// Not safe to share by itself: its owners (`BearerCache`, `EntitlementIndex`, `ShortLivedCache`)
/// hold it inside their `Mutex`.
public struct SegmentedLRU<Key: Hashable, Value> {
    private enum Segment { case probation, protected }

    private struct Slot {
        var key: Key
        var value: Value
    }

    private struct Link {
        /// The neighbour used more recently, or -1 at the head.
        var newer: Int32
        /// The neighbour used less recently, or -1 at the tail.
        var older: Int32
        var segment: Segment
    }

    private struct List {
        var head: Int32 = -1
        var tail: Int32 = -1
        var count = 0
    }

    /// The most entries held.
    public let capacity: Int
    /// The most entries in the protected segment.
    let protectedCapacity: Int
    private var slots: [Slot] = []
    private var links: [Link] = []
    private var index: [Key: Int] = [:]
    private var probation = List()
    private var protected = List()
    /// Lookups answered, lookups not answered (absent, or refused by the lookup's condition), and
    /// entries evicted to make room. Removals and `removeAll` are not evictions.
    public private(set) var hits = 0
    public private(set) var misses = 0
    public private(set) var evictions = 0

    /// A map of at most `capacity` entries (at least 1).
    public init(capacity: Int) {
        precondition(capacity > 0 && capacity < Int32.max, "a cache holds at least one entry")
        self.capacity = capacity
        self.protectedCapacity = capacity * 4 / 5
    }

    /// How many entries are held.
    public var count: Int { slots.count }

    /// Counts and capacity, for `/metrics`.
    public var statistics: CacheStatistics {
        CacheStatistics(entries: slots.count, capacity: capacity, hits: hits, misses: misses, evictions: evictions)
    }

    /// The value held for `key`, counted as a hit and marked as just used; nil (a miss) when none is
    /// held or `usable` refuses it, which removes it (an expired answer).
    public mutating func value(forKey key: Key, where usable: (Value) -> Bool = { _ in true }) -> Value? {
        guard let slot = index[key] else {
            misses += 1
            return nil
        }
        guard usable(slots[slot].value) else {
            remove(slot)
            misses += 1
            return nil
        }
        hits += 1
        use(slot)
        return slots[slot].value
    }

    /// The value held for `key`, neither counted nor marked as used.
    public func peek(_ key: Key) -> Value? {
        index[key].map { slots[$0].value }
    }

    /// Changes the value held for `key` in place, without marking it as used; false when none is held.
    @discardableResult
    public mutating func update(forKey key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard let slot = index[key] else { return false }
        change(&slots[slot].value)
        return true
    }

    /// Holds `value` for `key` as just used, evicting the least recently used entry when full.
    public mutating func insert(_ value: Value, forKey key: Key) {
        if let slot = index[key] {
            slots[slot].value = value
            use(slot)
            return
        }
        if slots.count >= capacity { evict() }
        slots.append(Slot(key: key, value: value))
        links.append(Link(newer: -1, older: -1, segment: .probation))
        index[key] = slots.count - 1
        link(Int32(slots.count - 1), at: .probation)
    }

    /// Forgets `key` at once.
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = slots[slot].value
        remove(slot)
        return value
    }

    /// Forgets everything (the counts stay).
    public mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        links.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        probation = List()
        protected = List()
    }

    /// The keys in the order they would be evicted: probation's least recently used first, then
    /// the protected segment's.
    public var keysInEvictionOrder: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(slots.count)
        for list in [probation, protected] {
            var slot = list.tail
            while slot >= 0 {
                keys.append(slots[Int(slot)].key)
                slot = links[Int(slot)].newer
            }
        }
        return keys
    }

    // MARK: - The lists

    /// A hit: probation promotes to the protected segment (whose overflow goes back to probation),
    /// the protected segment moves to its head.
    private mutating func use(_ position: Int) {
        let slot = Int32(position)
        unlink(slot)
        guard protectedCapacity > 0 else { return link(slot, at: .probation) }
        link(slot, at: .protected)
        if protected.count > protectedCapacity {
            let demoted = protected.tail
            unlink(demoted)
            link(demoted, at: .probation)
        }
    }

    private mutating func evict() {
        let victim = probation.tail >= 0 ? probation.tail : protected.tail
        remove(Int(victim))
        evictions += 1
    }

    /// Unlinks the slot and fills its place in the array with the last slot.
    private mutating func remove(_ slot: Int) {
        unlink(Int32(slot))
        index.removeValue(forKey: slots[slot].key)
        let last = slots.count - 1
        if slot != last {
            slots.swapAt(slot, last)
            links.swapAt(slot, last)
            index[slots[slot].key] = slot
            let moved = Int32(slot)
            let link = links[slot]
            if link.newer >= 0 { links[Int(link.newer)].older = moved } else { setHead(moved, of: link.segment) }
            if link.older >= 0 { links[Int(link.older)].newer = moved } else { setTail(moved, of: link.segment) }
        }
        slots.removeLast()
        links.removeLast()
    }

    private mutating func link(_ slot: Int32, at segment: Segment) {
        let head = segment == .probation ? probation.head : protected.head
        links[Int(slot)] = Link(newer: -1, older: head, segment: segment)
        if head >= 0 { links[Int(head)].newer = slot } else { setTail(slot, of: segment) }
        setHead(slot, of: segment)
        switch segment {
        case .probation: probation.count += 1
        case .protected: protected.count += 1
        }
    }

    private mutating func unlink(_ slot: Int32) {
        let link = links[Int(slot)]
        if link.newer >= 0 { links[Int(link.newer)].older = link.older } else { setHead(link.older, of: link.segment) }
        if link.older >= 0 { links[Int(link.older)].newer = link.newer } else { setTail(link.newer, of: link.segment) }
        links[Int(slot)].newer = -1
        links[Int(slot)].older = -1
        switch link.segment {
        case .probation: probation.count -= 1
        case .protected: protected.count -= 1
        }
    }

    private mutating func setHead(_ slot: Int32, of segment: Segment) {
        switch segment {
        case .probation: probation.head = slot
        case .protected: protected.head = slot
        }
    }

    private mutating func setTail(_ slot: Int32, of segment: Segment) {
        switch segment {
        case .probation: probation.tail = slot
        case .protected: protected.tail = slot
        }
    }
}

/// What a cache holds and how it has answered since it was made.
public struct CacheStatistics: Sendable, Equatable {
    public var entries: Int
    public var capacity: Int
    public var hits: Int
    public var misses: Int
    public var evictions: Int

    public init(entries: Int, capacity: Int, hits: Int, misses: Int, evictions: Int) {
        self.entries = entries
        self.capacity = capacity
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
    }
}
