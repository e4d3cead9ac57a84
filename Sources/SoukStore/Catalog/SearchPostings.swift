import Foundation

/// The storefront search's inverted index: for every folded word, the apps (slots) whose name
/// (tier 0), developer or subtitle (1) or description (2) contain it, as `slot << 2 | tier`.
///
/// Built once into flat arrays — the words sorted by their UTF-8 bytes in one byte array (a
/// prefix's words are one range of it) and every word's entries one range of `entries` — where a
/// `Set` per word and tier cost a heap allocation each. Changes go to a small overlay (`extra`);
/// a removed app's slot is marked stale, its entries skipped until the next rebuild (when the
/// overlay has grown past `rebuildAfter` entries), which drops them and frees the slot.
struct SearchPostings: Sendable {
    private var wordBytes: [UInt8] = []
    /// Word i is `wordBytes[wordStart[i]..<wordStart[i + 1]]`; its entries are
    /// `entries[entryStart[i]..<entryStart[i + 1]]`.
    private var wordStart: [UInt32] = [0]
    private var entryStart: [UInt32] = [0]
    private var entries: [UInt32] = []
    private var extra: [String: [UInt32]] = [:]
    private var extraCount = 0
    /// Slots removed since the last rebuild: their entries are ignored, the slots not reused.
    private(set) var stale: Set<Int32> = []

    /// Overlay entries that make the next change rebuild the flat arrays (about 2,500 changed apps:
    /// a rebuild costs a pass over every entry, a search a scan of the overlay's words).
    var rebuildAfter = 50_000

    var needsRebuild: Bool { extraCount > rebuildAfter }

    /// Adds `slot`'s entry for `word` in `tier` (0 name, 1 developer or subtitle, 2 description).
    /// A slot's words are added tier by tier, so a word met again in the same tier of the same slot
    /// finds its entry last in the word's list, and is added once.
    mutating func add(_ word: String, slot: Int32, tier: Int) {
        if extra[word, default: []].appendUnlessLast(UInt32(slot) << 2 | UInt32(tier)) { extraCount += 1 }
    }

    mutating func removeSlot(_ slot: Int32) {
        stale.insert(slot)
    }

    /// The entry lists a search for a word visits: the word's own (`exact`) and, with `longer`,
    /// those of every longer word it starts. A removed app's entries are still in them: skip the
    /// slots in `stale`.
    struct EntryLists {
        var exact: [ArraySlice<UInt32>] = []
        var longer: [ArraySlice<UInt32>] = []

        /// How many entries the lists hold, counted from their bounds alone.
        var count: Int {
            exact.reduce(0) { $0 + $1.count } + longer.reduce(0) { $0 + $1.count }
        }
    }

    /// The lists of `word`'s entries, and with `longer` those of every longer word it starts. The
    /// caller walks them in its own loop: a closure called per entry that updates the caller's
    /// arrays made Swift check exclusive access to them at run time on every entry, a third of a
    /// search's CPU (docs/benchmarks.md, "Ten times more, measured").
    func entryLists(_ word: String, longer: Bool) -> EntryLists {
        var lists = EntryLists()
        var key = word
        key.withUTF8 { key in
            var index = lowerBound(key)
            while index < wordCount, hasPrefix(index, key) {
                let list = entries[Int(entryStart[index])..<Int(entryStart[index + 1])]
                if wordLength(index) == key.count {
                    lists.exact.append(list)
                } else if longer {
                    lists.longer.append(list)
                } else {
                    break
                }
                index += 1
            }
        }
        if let list = extra[word] { lists.exact.append(list[...]) }
        if longer {
            for (other, list) in extra where other.utf8.count > word.utf8.count && other.utf8.starts(with: word.utf8) {
                lists.longer.append(list[...])
            }
        }
        return lists
    }

    /// Folds the overlay and the stale slots into the flat arrays; returns the slots freed.
    mutating func rebuild() -> [Int32] {
        var merged: [String: [UInt32]] = extra
        extra = [:]
        extraCount = 0
        for index in 0..<wordCount {
            let word = wordString(index)
            let list = entries[Int(entryStart[index])..<Int(entryStart[index + 1])]
            merged[word, default: []].insert(contentsOf: list, at: 0)
        }
        // Sorted by UTF-8 bytes: by the first eight bytes as one integer (words hold no zero byte,
        // so a shorter word's padding sorts first), then by all of them.
        var words = merged.map { (prefix: Self.prefix($0.key), word: $0.key, list: $0.value) }
        merged = [:]
        words.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : $0.word.utf8.lexicographicallyPrecedes($1.word.utf8) }
        var wordBytes: [UInt8] = []
        var entries: [UInt32] = []
        var wordStart: [UInt32] = [0]
        var entryStart: [UInt32] = [0]
        entries.reserveCapacity(words.reduce(0) { $0 + $1.list.count })
        wordStart.reserveCapacity(words.count + 1)
        entryStart.reserveCapacity(words.count + 1)
        self.wordBytes = []
        self.entries = []
        for (_, word, list) in words {
            let live = stale.isEmpty ? list : list.filter { !stale.contains(Int32($0 >> 2)) }
            guard !live.isEmpty else { continue }
            wordBytes.append(contentsOf: word.utf8)
            entries.append(contentsOf: live)
            wordStart.append(UInt32(wordBytes.count))
            entryStart.append(UInt32(entries.count))
        }
        self.wordBytes = wordBytes
        self.entries = entries
        self.wordStart = wordStart
        self.entryStart = entryStart
        let freed = Array(stale)
        stale = []
        return freed
    }

    /// The first eight UTF-8 bytes of `word`, big-endian, zero-padded: one integer comparison
    /// orders two words by their bytes unless these are equal.
    static func prefix(_ word: String) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 56
        for byte in word.utf8.prefix(8) {
            value |= UInt64(byte) << shift
            shift &-= 8
        }
        return value
    }

    // MARK: Base arrays

    private var wordCount: Int { wordStart.count - 1 }

    private func wordLength(_ index: Int) -> Int { Int(wordStart[index + 1] - wordStart[index]) }

    private func wordString(_ index: Int) -> String {
        String(decoding: wordBytes[Int(wordStart[index])..<Int(wordStart[index + 1])], as: UTF8.self)
    }

    /// The first word not below `key` (by bytes).
    private func lowerBound(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var low = 0, high = wordCount
        while low < high {
            let middle = (low + high) / 2
            if less(middle, key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func less(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let word = wordBytes[Int(wordStart[index])..<Int(wordStart[index + 1])]
        return word.lexicographicallyPrecedes(key)
    }

    private func hasPrefix(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        wordBytes[Int(wordStart[index])..<Int(wordStart[index + 1])].starts(with: key)
    }
}

extension Array where Element == UInt32 {
    /// Appends `entry` unless it is already the last element; true when appended.
    @discardableResult
    mutating func appendUnlessLast(_ entry: UInt32) -> Bool {
        if last == entry { return false }
        append(entry)
        return true
    }
}
