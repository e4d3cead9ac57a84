import Foundation
import Hummingbird
@testable import SoukServer
import SoukApp
import SoukTestSupport
import Testing

/// The page templates are checked when the application is built: every `PageTemplate` a handler
/// renders or a template includes must be registered, or the start fails naming it.
@Suite struct PageTemplateTests {
    @Test(arguments: TestBackend.available)
    func aMissingTemplateStopsTheStartWithItsName(_ backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (location, drop) = try await backend.makeLocation(dataDir: folder.path)
        var config = SoukConfig(dataDir: folder.path + "/data", port: 0, publicURL: "https://souk.test", database: location)
        config.databasePoolWaitSeconds = 120
        try await SoukRuntime.open(config, logger: testLogger(), migrate: true).closing { runtime in
            var templates = Pages.allTemplates
            templates["admin-dashboard"] = nil
            #expect {
                _ = try buildApplication(runtime, templates: templates)
            } throws: { error in
                "\(error)".contains("\"admin-dashboard\" is missing")
            }
            // The server's own templates are complete.
            _ = try buildApplication(runtime)
        }
        await drop()
    }

    @Test func aTemplateThatDoesNotParseStopsTheStartWithItsName() {
        var templates = Pages.allTemplates
        templates["home"] = "{{#open}} never closed"
        #expect {
            _ = try Pages(templates: templates)
        } throws: { error in
            "\(error)".contains("\"home\" does not parse")
        }
    }

    /// Every registered template is a `PageTemplate`, and every partial a template includes is one
    /// too: the names the server renders are known, and a missing partial fails the start as well.
    @Test func everyTemplateAndEveryIncludedPartialIsAPageTemplate() throws {
        let known = Set(PageTemplate.allCases.map(\.rawValue))
        #expect(Set(Pages.allTemplates.keys) == known)
        let partial = try Regex(#"\{\{>\s*([a-z0-9-]+)\s*\}\}"#)
        for (name, text) in Pages.allTemplates {
            for match in text.matches(of: partial) {
                let included = String(match.output[1].substring ?? "")
                #expect(known.contains(included), "\(name) includes \(included)")
            }
        }
    }
}
