import SoukDevice

@main
struct SoukDeviceMain {
    static func main() async {
        await SoukDeviceCommand.main(nil)
    }
}
