import Foundation
import SoukCore
import SoukIntegrations

/// The answer Souk gives to Apple's refund request for one purchase (Send Consumption
/// Information, `ConsumptionRequest`), from what Souk knows and the app's settings — a rule with
/// no I/O. Apple's constraints are kept so Apple never refuses the answer for its shape:
/// `consumptionPercentage` is absent for an auto-renewable subscription (Apple computes it), 0 when
/// the purchase was not delivered, and a prorated preference needs a share strictly between 0
/// and 100 % for other products — with none known the preference is left out, with 0 % used it is
/// a full grant, with everything used a decline.
public enum AppleConsumptionAnswer {
    /// - Parameters:
    ///   - granted: Souk granted the purchase (delivered it).
    ///   - type: the product type.
    ///   - share: the used share in milliunits where Souk counts it (consumables), else nil.
    public static func make(granted: Bool, type: ProductType, share: Int?, settings: AppleStoreSettings) -> AppleConsumptionRequest {
        let delivery: AppleDeliveryStatus = granted ? .delivered : .undeliveredOther
        let percentage: Int? = if type == .autoRenewable { nil } else if !granted { 0 } else { share.map { min(100_000, max(0, $0)) } }
        let preference: AppleRefundPreference? = switch settings.refundPreference {
        case nil: nil
        case .decline?: .decline
        case .grant?: .grantFull
        case .prorated?:
            if type == .autoRenewable {
                .grantProrated
            } else {
                switch percentage {
                case nil: nil
                case 0?: .grantFull
                case 100_000?: .decline
                default: .grantProrated
                }
            }
        }
        return AppleConsumptionRequest(customerConsented: true, sampleContentProvided: settings.sampleContentProvided,
                                       deliveryStatus: delivery, consumptionPercentage: percentage, refundPreference: preference)
    }
}
