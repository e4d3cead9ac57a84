/// The Mustache contexts of the storefront, the account page and the TV sign-in pages. Each renders
/// as a `PageContext` of a `PublicLayout` and its page, so `{{#has-<list>}}` works for its lists.

/// What `{{> start}}` and `{{> start-plain}}` show on every public page.
struct PublicLayout: Sendable {
    let title: String
    let marketplace: String
}

/// An `<img>` for the `image` partial (and a card's icon): `srcset` and `sizes` when the media
/// has variants; `alt`, `class` and the size where the page shows them.
struct ImageValues: Sendable {
    let src: String
    var srcset: String?
    var sizes: String?
    var alt: String?
    var `class`: String?
    var width: Int?
    var height: Int?
}

/// One app in a list (`card`): name, developer or subtitle, price, icon.
struct AppCardValues: Sendable {
    let name: String
    let url: String
    let price: String
    let meta: String?
    let icon: ImageValues?
}

/// A category with apps, as a chip.
struct CategoryChipValues: Sendable {
    let name: String
    let url: String
    let count: Int
}

/// `pager`: where a long list is, with the links before and after.
struct PagerValues: Sendable {
    let page: Int
    let pages: Int
    let previous: String?
    let next: String?
}

/// `home`: featured apps, new and updated, the categories.
struct HomePageValues: Sendable {
    let total: Int
    let hasApps: Bool
    let featured: [AppCardValues]
    let newest: [AppCardValues]
    let categories: [CategoryChipValues]
}

/// `catalog` (all apps, a category) and `search`: one page of cards and its pager.
struct AppListPageValues: Sendable {
    let heading: String
    let summary: String
    let apps: [AppCardValues]
    let pager: PagerValues?
    var categories: [CategoryChipValues] = []
    /// What was searched for; nil on a search without words (the page then gives a hint) and on lists.
    var query: String?
}

/// `app`: an app's page in the storefront, with Install or Buy for the signed-in person.
struct StorefrontAppPageValues: Sendable {
    struct Screenshots: Sendable {
        let family: String
        let slug: String
        let images: [ImageValues]
    }

    struct Product: Sendable {
        let title: String
        let kind: String
        let price: String
    }

    struct Version: Sendable {
        let shortVersion: String
        let bundleVersion: String
        let released: String
        let requirements: String?
    }

    struct Category: Sendable {
        let name: String
        let url: String
    }

    let name: String
    let subtitle: String?
    let developer: String?
    let priceLabel: String
    let icon: ImageValues?
    let screenshots: [Screenshots]
    let description: [String]
    let whatsNew: [String]
    let latestVersion: String?
    let size: String?
    let category: Category?
    let compatibility: [String]
    let products: [Product]
    let versions: [Version]
    /// schema.org JSON made safe for `<script>` (`AppPagesController.jsonLD`).
    let jsonLD: String
    let signedIn: Bool
    let csrfToken: String
    let installAction: String
    let signInURL: String
    var canInstall = false
    var buyAction: String?
    var buyLabel: String?
    var paymentNote: String?
}

/// `account`: the signed-in person's memberships, purchases, devices and installs.
struct AccountPageValues: Sendable {
    struct Plan: Sendable {
        let id: String
        let name: String
        let price: String
        let status: String
        let canCancel: Bool
        let canResume: Bool
    }

    struct Purchase: Sendable {
        let item: String
        let price: String
        let status: String
    }

    struct Receipt: Sendable {
        let date: String
        let item: String
        let kind: String
        let amount: String
    }

    struct Device: Sendable {
        let clientId: String
        let signedIn: String
        let lastUsed: String
    }

    struct Install: Sendable {
        let deviceId: String
        let apps: String
        let expires: String
    }

    let email: String
    let csrfToken: String
    let plans: [Plan]
    let purchases: [Purchase]
    let receipts: [Receipt]
    let devices: [Device]
    let installs: [Install]
    let installCount: Int
    /// The account's device limit; nil when there is none.
    let deviceLimit: String?
    let accountLicenseHours: Int
    let publicLicenseDays: Int
    var notice: String?
    var problem: String?
}

/// `activate`, `activate-confirm` and `activate-done`: a TV's sign-in, approved on the website.
struct ActivatePageValues: Sendable {
    let email: String
    let csrfToken: String
    /// The code as typed (`activate`) or as the TV shows it (`activate-confirm`).
    var userCode = ""
    var error: String?
    /// The asking client's name (`activate-confirm`, `activate-done`).
    var client = ""
    var approved = false
}
