import ArgumentParser
import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import SoukApp
import SoukCLI
import SoukServer

/// `souk serve`: runs the HTTP server until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Souk server.")

    @OptionGroup var settings: SettingsOptions

    @Option(help: "Address to listen on (SOUK_HOSTNAME, default 127.0.0.1).")
    var hostname: String?

    @Option(help: "Port to listen on (SOUK_PORT, default 8080; 0 picks a free one).")
    var port: Int?

    @Option(help: "External base URL used in generated URLs (SOUK_PUBLIC_URL).")
    var publicUrl: String?

    @Option(help: "PEM certificate chain: serve HTTPS directly (SOUK_TLS_CERT).")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert (SOUK_TLS_KEY).")
    var tlsKey: String?

    @Flag(help: "On first start, fill the empty catalog with a demo marketplace; sell through the development processor (no money moves) unless paymentProcessor is stripe.")
    var demo = false

    func run() async throws {
        var extra: [String: String] = [:]
        extra["hostname"] = hostname
        // Port 0 means "any free port": resolve it now, so the public URL derived from it is real.
        extra["port"] = port.map { $0 == 0 ? FreePort.find(host: hostname ?? "127.0.0.1").map(String.init) ?? "0" : String($0) }
        extra["publicUrl"] = publicUrl
        extra["tlsCert"] = tlsCert
        extra["tlsKey"] = tlsKey
        // The demo's operator signs in with a password only (unless the environment asks for more).
        let demoWithoutTwoFactor = demo && ProcessInfo.processInfo.environment["SOUK_CONSOLE_REQUIRES_TWO_FACTOR"] == nil
        if demoWithoutTwoFactor { extra["consoleRequiresTwoFactor"] = "false" }
        let demo = demo
        let runtime = try await settings.openRuntime(extraFlags: extra, quiet: false) { config in
            // The demo sells its paid app and plan without money, unless Stripe was chosen.
            if demo, config.commerce.paymentProcessor == "none" { config.commerce.paymentProcessor = "development" }
        }
        var demoLines: [String] = []
        if demo {
            do {
                demoLines = try await DemoSeeder(runtime: runtime).seedIfEmpty().lines(publicURL: runtime.config.publicURL)
            } catch {
                await runtime.close()
                throw error
            }
        }
        let config = runtime.config
        let logger = runtime.logger
        var warnings: [String] = []
        let sales: SalesAtStart
        do {
            sales = try await SalesAtStart.check(runtime)
        } catch {
            await runtime.close()
            throw error
        }
        if let warning = sales.warning { warnings.append("  ⚠️  \(warning)") }
        if (try? await runtime.catalog.marketplaceIdentity(defaultKeyId: runtime.keys.installVerificationKeyId).appleItemId) == 0 {
            warnings.append("""
                  ⚠️  restore and updates answer 503 until the marketplace has its AppleItemID (from App Store Connect):
                     souk marketplace set --apple-item-id <N>
                """)
        }
        if demoWithoutTwoFactor {
            warnings.append("  ⚠️  the console does not require two-factor sign-in (--demo); without --demo support and operators enrol first")
        }
        let extraLines = demoLines + warnings
        // The in-memory indexes are built in the background once the application runs: the port opens
        // at once (liveness), `/health/ready` answers 200 when they are loaded, and systemd hears
        // READY=1 then (deploy/systemd/souk@.service, Type=notify).
        let readiness = Readiness(onReady: {
            logger.info("ready: the in-memory indexes are loaded")
            SystemdNotify.ready(status: "ready: the in-memory indexes are loaded")
        })
        let app = try buildApplication(runtime, readiness: readiness) { channel in
            let port = channel.localAddress?.port ?? config.port
            let scheme = config.tls == nil ? "http" : "https"
            let listening = "\(scheme)://\(config.hostname):\(port)"
            let base = config.publicURL
            var lines = [
                "Souk is listening on \(listening)",
                "  public URL   \(config.publicURL)",
                "  database     \(config.database)",
                "  data folder  \(config.dataDir)",
                "  storefront   \(base)/",
                "  health       \(base)/health (ready: \(base)/health/ready)",
                "  metrics      \(base)/metrics",
                "  packages     \(base)/packages/<appleItemId>/<appleVersionId>/manifest.json",
            ]
            if let line = sales.bannerLine { lines.append(line) }
            lines += extraLines
            print(lines.joined(separator: "\n"))
            fflush(nil)  // the URLs must show at once, also when stdout is a file or a pipe
            if let warning = sales.warning { logger.warning("\(warning)") }
        }
        do {
            // Bounded: a request that never ends must not keep a stopping server alive for ever.
            var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                          logger: runtime.logger)
            configuration.maximumGracefulShutdownDuration = .seconds(30)
            configuration.maximumCancellationDuration = .seconds(5)
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            await runtime.close()
            throw error
        }
        await runtime.close()
    }
}
