// swift-tools-version: 6.2
// The swift-openapi-generator command-line tool, pinned, built apart from Souk by
// scripts/generate-client.sh (scratch folder .build-openapi) so the server's build never compiles
// the generator and its dependencies (docs/clients.md, "Regenerating").
import PackageDescription

let package = Package(
    name: "souk-openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3"),
    ]
)
