import SoukCore
import Testing

@Suite struct ClientAddressTests {
    static let proxies = ["10.0.0.0/8", "fd00::/8"].compactMap { IPNetwork($0) }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"), ("::ffff:192.0.2.1", "192.0.2.1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("fe80::1%eth0", "fe80::1"), ("::", "::"), ("::1", "::1"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
    ])
    func addressesHaveOneCanonicalSpelling(_ text: String, _ canonical: String) throws {
        #expect(try #require(IPAddress(text)).description == canonical)
    }

    @Test(arguments: ["", "unknown", "192.0.2", "192.0.2.256", "01.2.3.4", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "[::1]", "::g"])
    func notAddressesAreRefused(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func rangesContainTheirAddressesOnly() throws {
        let v4 = try #require(IPNetwork("192.168.1.77/24"))
        #expect(v4.description == "192.168.1.0/24")
        #expect(v4.contains(try #require(IPAddress("192.168.1.200"))))
        #expect(!v4.contains(try #require(IPAddress("192.168.2.1"))))
        let v6 = try #require(IPNetwork("2001:db8::/32"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:ffff::1"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db9::1"))))
        #expect(!v6.contains(try #require(IPAddress("192.0.2.1"))))
        #expect(try #require(IPNetwork("::ffff:10.0.0.0/104")).contains(try #require(IPAddress("10.1.2.3"))))
        #expect(try #require(IPNetwork("203.0.113.9")).prefixLength == 32)
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/a", "nonsense/8"] { #expect(IPNetwork(bad) == nil, "\(bad)") }
    }

    @Test func withoutTrustedProxiesTheHeaderIsIgnored() {
        let peer = IPAddress("198.51.100.4")
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: ["203.0.113.9"], trustedProxies: []) == peer)
        // A peer outside the trusted ranges may write anything.
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: ["203.0.113.9"], trustedProxies: Self.proxies) == peer)
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: ["203.0.113.9"], trustedProxies: Self.proxies) == nil)
    }

    @Test func behindTrustedProxiesTheRightMostUntrustedHopIsTheClient() {
        let proxy = IPAddress("10.0.0.2")
        // The client forged the left part; the proxies appended the rest.
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: ["1.1.1.1, 203.0.113.9", "10.0.0.3"],
                                      trustedProxies: Self.proxies) == IPAddress("203.0.113.9"))
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: ["[2001:db8::7]:4711"], trustedProxies: Self.proxies) == IPAddress("2001:db8::7"))
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: ["203.0.113.9:4711"], trustedProxies: Self.proxies) == IPAddress("203.0.113.9"))
        // Everything trusted: the left-most hop; nothing forwarded: the proxy itself.
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: ["10.9.9.9, 10.0.0.3"], trustedProxies: Self.proxies) == IPAddress("10.9.9.9"))
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: [], trustedProxies: Self.proxies) == proxy)
        // Garbage where an address should be: the last hop that could be trusted.
        #expect(ClientAddress.resolve(peer: proxy, forwardedFor: ["203.0.113.9, unknown"], trustedProxies: Self.proxies) == proxy)
    }

    @Test func anIPv6ClientIsThrottledByItsSlash64() {
        #expect(ClientAddress.throttleKey(IPAddress("2001:db8:1:2:aaaa::1")) == "2001:db8:1:2::/64")
        #expect(ClientAddress.throttleKey(IPAddress("2001:db8:1:2:bbbb::9")) == "2001:db8:1:2::/64")
        #expect(ClientAddress.throttleKey(IPAddress("192.0.2.1")) == "192.0.2.1")
        #expect(ClientAddress.throttleKey(nil) == "unknown")
    }
}
