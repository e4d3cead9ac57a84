import SoukCLI

/// The `souk` executable: every command lives in `SoukCLI`'s `SoukCommand`.
@main
struct Souk {
    static func main() async {
        await SoukCommand.main(nil)
    }
}
