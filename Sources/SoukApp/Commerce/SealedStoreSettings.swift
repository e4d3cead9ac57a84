import Foundation
import SoukCore
import SoukStore

/// Puts an app's sealed store credentials into its store settings, opened now: a sealed credential
/// stands in for the file or environment reference of the same setting (it is what was uploaded
/// last), so a rotation is used by the next store call without a restart. Amazon and Roku need
/// nothing but their secret, so a sealed one configures the store for the app; Apple's and
/// Google's other settings (key id, issuer, package name) stay in the catalog file, so a sealed
/// key fills only a store the catalog configures. A credential that does not open (the sealing
/// key missing or another one) becomes a reference whose reading fails with why: the store call
/// then gives no verdict, it never refuses the purchase.
package struct SealedStoreSettings: Sendable {
    let credentials: StoreCredentialStore
    let keysDir: String

    package init(database: SoukDatabase, keysDir: String) {
        credentials = StoreCredentialStore(database: database)
        self.keysDir = keysDir
    }

    /// `settings` with the app's sealed credentials in place.
    package func apply(to settings: CommerceStoreSettings, app: String) async throws -> CommerceStoreSettings {
        let stored = try await credentials.credentials(app: app)
        guard !stored.isEmpty else { return settings }
        let sealer = Result { () throws(CredentialSealingError) in try CredentialSealer.load(keysDir: keysDir) }
        var settings = settings
        for credential in stored {
            let box = StoredCredentialBox(app: app, kind: credential.kind, keyId: credential.keyId, sealed: credential.sealed)
            let reference: SecretReference
            do {
                reference = .sealed(SealedSecret(hint: credential.hint, secret: try sealer.get().open(box)))
            } catch {
                reference = .sealed(SealedSecret(hint: credential.hint, failure: "the sealed \(credential.kind.summary) cannot be opened: \(error)"))
            }
            Self.place(reference, kind: credential.kind, in: &settings)
        }
        return settings
    }

    static func place(_ reference: SecretReference, kind: StoreCredentialKind, in settings: inout CommerceStoreSettings) {
        switch kind {
        case .appleServerAPIKey: settings.apple?.privateKey = reference
        case .googleServiceAccount: settings.googlePlay?.serviceAccount = reference
        case .googleRTDNToken: settings.googlePlay?.rtdnToken = reference
        case .amazonSharedSecret:
            var amazon = settings.amazon ?? AmazonSettings()
            amazon.sharedSecret = reference
            settings.amazon = amazon
        case .rokuPartnerAPIKey:
            var roku = settings.roku ?? RokuSettings()
            roku.partnerApiKey = reference
            settings.roku = roku
        }
    }
}
