import SoukServer

/// The `souk` executable: everything lives in `SoukServer`'s `SoukCommand`.
@main
struct Souk {
    static func main() async {
        await SoukCommand.main(nil)
    }
}
