import SoukServe

/// The `souk` executable: every command lives in `SoukServe`'s `SoukCommand`.
@main
struct Souk {
    static func main() async {
        await SoukCommand.main(nil)
    }
}
