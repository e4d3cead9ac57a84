import Foundation
import Hummingbird
import SoukCore
import SoukTestSupport

/// `souk-store-fakes DIR BUNDLE_ID`: the App Store Server API fake of the Swift tests
/// (`FakeAppStoreServerAPI`, production host) as a process, for the browser tests
/// (scripts/browser-tests.sh), which have no Swift test around them. It writes, in DIR, the test
/// chain's root (`apple-root.der`, for `SOUK_APPLE_ROOT_CERTIFICATES`), the In-App Purchase key
/// (`apple-key.p8`) and `apple.json` (`keyId`, `issuerId`, `baseURL`), then serves until it is
/// stopped. Staging, as the Swift tests call the fake:
///
/// - `POST /_control/apple/subscription {"productId", "account", "days"}`: Apple knows a new
///   auto-renewable subscription of the customer (expiring in `days`); answers its signed
///   transaction (`jws`) and `transactionId`, for the app to report to Souk;
/// - `POST /_control/apple/order {"orderId", "transactionIds"}`: an order id of a receipt;
/// - mass extensions complete when their status is first asked.
@main
struct StoreFakes {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: souk-store-fakes DIR BUNDLE_ID\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
        let bundleId = arguments[2]
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: bundleId)
        fake.completeMassExtensionsWhenAsked()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try chain.writeRoot(in: directory, name: "apple-root.der")
        try fake.privateKeyPEM.write(to: directory.appendingPathComponent("apple-key.p8"), atomically: true, encoding: .utf8)
        try await serve(fake, chain: chain, bundleId: bundleId, directory: directory)
    }

    /// Serves the fake and its control routes until the process is stopped (off the main actor, as in the tests).
    nonisolated static func serve(_ fake: FakeAppStoreServerAPI, chain: AppleTestChain, bundleId: String, directory: URL) async throws {
        try await FakeStoreServer.run(routes: { router in
            fake.routes(router)
            router.post("/_control/apple/subscription") { request, _ in
                let fields = try await Self.body(request)
                let days = fields["days"] as? Int ?? 30
                let transaction = AppleTestTransaction(bundleId: bundleId, productId: fields["productId"] as? String ?? "", type: .autoRenewable,
                                                       purchaseDate: Date().addingTimeInterval(-86_400),
                                                       expiresDate: Date().addingTimeInterval(TimeInterval(days) * 86_400))
                fake.add(transaction, account: fields["account"] as? String ?? "customer")
                return FakeStoreServer.json(object: ["jws": chain.signTransaction(transaction), "transactionId": transaction.transactionId])
            }
            router.post("/_control/apple/order") { request, _ in
                let fields = try await Self.body(request)
                fake.addOrder(fields["orderId"] as? String ?? "", transactionIds: fields["transactionIds"] as? [String] ?? [])
                return FakeStoreServer.json(object: [String: String]())
            }
        }) { baseURL in
            let description: [String: String] = ["keyId": fake.keyId, "issuerId": fake.issuerId, "baseURL": baseURL]
            let json = try JSONSerialization.data(withJSONObject: description)
            // Written last, whole: the script waits for this file.
            try json.write(to: directory.appendingPathComponent("apple.json.part"))
            try FileManager.default.moveItem(at: directory.appendingPathComponent("apple.json.part"), to: directory.appendingPathComponent("apple.json"))
            // SIGTERM does not end this process (the test application's service group takes it):
            // scripts/browser-tests.sh stops it with SIGKILL.
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }

    /// The JSON body of a control request.
    static func body(_ request: Request) async throws -> [String: Any] {
        let buffer = try await request.body.collect(upTo: 1 << 16)
        return (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any] ?? [:]
    }
}
