import SoukCore
import Testing

/// Page numbers come from queries: any whole number, however large, reads a page (empty past the
/// end) and never traps on the multiplication.
@Suite struct ProductListsPagingTests {
    @Test func pageOffsetsSaturateInsteadOfOverflowing() {
        #expect(ProductLists.offset(page: 1, size: 50) == 0)
        #expect(ProductLists.offset(page: 3, size: 50) == 100)
        #expect(ProductLists.offset(page: 0, size: 50) == 0)
        let huge = ProductLists.offset(page: 6_165_903_546_708_930_560, size: 50)
        #expect(huge == Int.max / 2)
        // Room for a limit on top, as `offset..<offset + limit` needs.
        #expect(huge + 1000 > huge)
        #expect(ProductLists.page(count: 10, offset: huge, limit: 50) == (10..<10, false))
        #expect(ProductLists.page(count: 10, offset: 5, limit: 50) == (5..<10, false))
        #expect(ProductLists.page(count: 10, offset: 0, limit: 4) == (0..<4, true))
    }
}
