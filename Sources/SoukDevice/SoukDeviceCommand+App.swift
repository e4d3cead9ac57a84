import ArgumentParser
import Foundation

/// The marketplace's own app and a TV: `browse`, `install-from-app`, `tv-sign-in` (docs/souk-device.md).
extension SoukDeviceCommand {
    struct Browse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the marketplace's apps as its app does (GET /api/v1/apps), with what the signed-in person may do.")
        @OptionGroup var device: DeviceOptions
        @Option(help: "The marketplace's base URL.") var marketplace: String
        @Option(help: "Search words, ranked as the storefront's search.") var query: String?

        func run() async throws {
            try await device.run { device in
                for app in try await device.browse(marketplace: marketplace, query: query) {
                    print("app \(app.appleItemId)  \(app.name)  \(app.price)\(app.action.map { "  \($0)" } ?? "")")
                }
            }
        }
    }

    struct InstallFromApp: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install-from-app",
            abstract: "Install as the marketplace app does: sign in, POST /api/v1/apps/<id>/install, then license, restore and download.")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "The app's AppleItemID.") var appleItemId: UInt64
        @Option(help: "The marketplace's base URL.") var marketplace: String
        @Option(help: "The account to sign in with.") var email: String
        @Option(help: "Its password (not needed while the device holds a token for the account).") var password: String?
        @Flag(help: "Buy the app first when it is not paid for (the checkout request the answer names).") var buy = false

        func run() async throws {
            try await device.run { device in
                do {
                    let app = try await device.installFromApp(appleItemId: appleItemId, marketplace: marketplace, email: email,
                                                              password: password, buy: buy)
                    print("installed \(app.appleItemId) \(app.appleVersionId) \(app.bundleId) \(app.shortVersionString)")
                    print("dtype \(app.dtype ?? "?")")
                } catch let refusal as Device.PaymentRequired {
                    // What the app would show before its Buy button: the 402 and the request that buys.
                    print("payment required \(refusal.type)")
                    if let url = refusal.purchaseURL { print("purchaseURL \(url)") }
                    if let checkout = refusal.checkout { print("checkout POST \(checkout.url) \(String(decoding: checkout.body, as: UTF8.self))") }
                    FileHandle.standardError.write(Data("error: \(refusal.detail) (--buy buys it)\n".utf8))
                    try device.save()
                    throw ExitCode(2)
                }
            }
        }
    }

    struct TVSignInCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tv-sign-in",
            abstract: "Sign in as a TV does (RFC 8628): print the XXXX-XXXX code and where to type it, poll, store the tokens.")
        @OptionGroup var device: DeviceOptions
        @Option(help: "The marketplace's base URL.") var marketplace: String
        @Option(help: "The registered tv client's client_id.") var clientId: String
        @Option(help: "Scopes to ask for (e.g. \"openid email\").") var scope: String?

        func run() async throws {
            try await device.run { device in
                let tokens = try await device.tvSignIn(marketplace: marketplace, clientId: clientId, scope: scope)
                print("signed in\(tokens.account.map { " as \($0)" } ?? "")")
            }
        }
    }
}

extension Device {
    /// The TV flow against `marketplace`: the code printed (standard output, one line `code XXXX-XXXX`,
    /// then `visit URL`), polled until approved; the tokens kept for the marketplace's host under the
    /// account `GET /api/v1/account` names.
    public func tvSignIn(marketplace: String, clientId: String, scope: String?) async throws -> (tokens: DeviceState.Tokens, account: String?) {
        guard let origin = MarketplaceClient.origin(of: marketplace), let domain = URLComponents(string: origin)?.host else {
            throw DeviceError(.protocolViolation, "--marketplace must be an http(s) URL")
        }
        let output = self.output
        let flow = TVSignIn(http: http, say: { output.say($0) })
        let endpoints = try await flow.endpoints(origin: origin)
        let authorization = try await flow.authorize(endpoint: endpoints.deviceAuthorization, clientId: clientId, scope: scope)
        // Unbuffered: whoever reads the code from a pipe needs it before the polling ends.
        FileHandle.standardOutput.write(Data("code \(authorization.userCode)\nvisit \(authorization.verificationURIComplete ?? authorization.verificationURI)\n".utf8))
        output.say("On a phone or computer, open \(authorization.verificationURI) and enter \(authorization.userCode).")
        let tokens = try await flow.poll(endpoint: endpoints.token, clientId: clientId, authorization: authorization)
        let answer = try await http.send(.GET, origin + "/api/v1/account", headers: [("Authorization", "Bearer \(tokens.accessToken)")])
        let account = answer.status == 200 ? (try? http.json(answer, "account"))?["email"] as? String : nil
        state.tokens[DeviceState.key(domain: domain, account: account)] = tokens
        try save()
        return (tokens, account)
    }
}
