import Crypto
import Foundation
import SoukCore
import SoukStore

/// Fills an empty catalog with a demo marketplace: three apps (two public, one for signed-in
/// accounts), each with two versions imported from real sample packages, an in-app product
/// catalog for Souk Studio Pro, and one demo account whose random password is shown once.
public struct DemoSeeder {
    package let runtime: SoukRuntime

    public init(runtime: SoukRuntime) {
        self.runtime = runtime
    }

    package static let demoEmail = "demo@souk.example"
    /// The demo's console operator (role `operator`, its own password shown once).
    package static let operatorEmail = "operator@souk.example"
    package static let marketplaceAppleItemId: UInt64 = 6_446_000_000

    package struct DemoApp {
        package var appleItemId: UInt64
        package var bundleId: String
        package var name: String
        package var subtitle: String
        package var developer: String
        package var access: AccessPolicy
        /// (AppleVersionID, shortVersionString, bundleVersion, minimum iOS)
        package var versions: [(UInt64, String, String, String)]
        /// A paid app's prices (empty: free).
        package var prices: [Price] = []
    }

    package static let apps: [DemoApp] = [
        DemoApp(appleItemId: 6_446_000_001, bundleId: "org.souk.demo.notes", name: "Souk Notes", subtitle: "Plain notes, synced",
                developer: "Souk Demo Studio", access: .public,
                versions: [(8_000_000_101, "1.0", "10", "17.0"), (8_000_000_102, "1.1", "11", "17.4")]),
        DemoApp(appleItemId: 6_446_000_002, bundleId: "org.souk.demo.weather", name: "Souk Weather", subtitle: "Forecasts without tracking",
                developer: "Souk Demo Studio", access: .public,
                versions: [(8_000_000_201, "2.0", "200", "17.0"), (8_000_000_202, "2.1", "210", "17.2")]),
        DemoApp(appleItemId: 6_446_000_003, bundleId: "org.souk.demo.studio", name: "Souk Studio Pro", subtitle: "For members",
                developer: "Souk Demo Studio", access: .account,
                versions: [(8_000_000_301, "3.0", "300", "17.4"), (8_000_000_302, "3.1", "310", "18.0")]),
        DemoApp(appleItemId: 6_446_000_004, bundleId: "org.souk.demo.sketch", name: "Souk Sketch", subtitle: "A paid app",
                developer: "Souk Demo Studio", access: .public,
                versions: [(8_000_000_401, "1.0", "100", "17.0"), (8_000_000_402, "1.1", "110", "17.4")],
                prices: [Price(currency: "USD", amount: 299), Price(currency: "EUR", amount: 279)]),
    ]

    /// What seeding did, for the operator.
    public enum Outcome {
        /// `password` is nil when the demo account already existed (its password is unchanged);
        /// `operatorPassword` the same for the demo operator of the console.
        case seeded(password: String?, operatorPassword: String? = nil)
        case alreadyPopulated

        public func lines(publicURL: String) -> [String] {
            switch self {
            case .alreadyPopulated:
                return ["  demo         the catalog already has apps; nothing seeded"]
            case .seeded(let password, let operatorPassword):
                var lines = ["  demo account \(DemoSeeder.demoEmail)  " + (password.map { "password \($0)  (shown once)" } ?? "(existed already; password unchanged)")]
                if let operatorPassword {
                    lines.append("  demo console \(DemoSeeder.operatorEmail)  password \(operatorPassword)  (shown once)  \(publicURL)/admin")
                }
                for app in DemoSeeder.apps {
                    let latest = app.versions.last!.0
                    let price = app.prices.isEmpty ? "" : ", \(AppPricing(prices: app.prices).summary)"
                    lines.append("  demo app     \(app.name) (\(app.access.rawValue)\(price))  \(publicURL)/packages/\(app.appleItemId)/\(latest)/manifest.json")
                }
                lines.append("  demo catalog \(DemoSeeder.commerceApp) in-app products  \(publicURL)/commerce/\(DemoSeeder.commerceApp)/products")
                lines.append("  demo content studio.brushes (hosted, for its buyers)  \(publicURL)/commerce/\(DemoSeeder.commerceApp)/content/studio.brushes/manifest.json")
                lines.append("  demo plan    member.monthly (POST /api/v1/checkout {\"productId\": \"member.monthly\"})")
                return lines
            }
        }
    }

    public func seedIfEmpty() async throws -> Outcome {
        let catalog = runtime.catalog
        guard try await catalog.appRecords().isEmpty else { return .alreadyPopulated }
        if try await catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId).appleItemId == 0 {
            try await catalog.setMarketplace(name: "Souk Demo Marketplace", appleItemId: Self.marketplaceAppleItemId,
                                             defaultKeyId: runtime.keys.installVerificationKeyId)
        }
        let workFolder = WorkOwner.name(prefix: "demo-", in: runtime.config.workDir)
        defer { try? FileManager.default.removeItem(atPath: workFolder) }
        for app in Self.apps {
            try await catalog.createApp(NewApp(
                appleItemId: app.appleItemId, bundleId: app.bundleId, name: app.name, subtitle: app.subtitle,
                description: "\(app.name) is a demo app of the Souk marketplace. Its packages are samples made by `souk packages make-sample`.",
                developerName: app.developer, access: app.access))
            if !app.prices.isEmpty {
                try await catalog.setPricing(appleItemId: app.appleItemId, prices: app.prices, requiresEntitlement: nil)
            }
            for (index, version) in app.versions.enumerated() {
                let folder = "\(workFolder)/\(version.0)"
                try SamplePackageMaker(appleItemId: app.appleItemId, appleVersionId: version.0, bundleId: app.bundleId,
                                       shortVersion: version.1, bundleVersion: version.2, minimumOS: OSVersion(version.3)!,
                                       variantSize: 256 * 1024, chunkSize: 64 * 1024).write(to: folder)
                // Older versions were released earlier, so "newest" reads naturally.
                let released = Date().addingTimeInterval(Double(index - app.versions.count) * 86_400 * 30)
                _ = try await runtime.importer.importPackage(at: folder, releaseDate: released)
            }
            try await seedStorefront(appleItemId: app.appleItemId)
        }
        try await seedCommerceCatalog(workFolder: workFolder)
        // An operator for the console (/admin), so a newcomer sees the operator's side too.
        var operatorPassword: String?
        if try await catalog.people.account(email: Self.operatorEmail) == nil {
            let password = Self.randomPassword()
            _ = try await catalog.people.create(email: Self.operatorEmail, passwordHash: try await PasswordHasher.hash(password), role: .operator)
            operatorPassword = password
        }
        guard try await catalog.people.account(email: Self.demoEmail) == nil else {
            return .seeded(password: nil, operatorPassword: operatorPassword)
        }
        let password = Self.randomPassword()
        _ = try await catalog.people.create(email: Self.demoEmail, passwordHash: try await PasswordHasher.hash(password))
        return .seeded(password: password, operatorPassword: operatorPassword)
    }

    /// 16 characters from an unambiguous alphabet, from the system's secure generator.
    package static func randomPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))] })
    }
}
