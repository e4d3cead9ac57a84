extension StoreKitConfiguration {
    /// The currency App Store Connect prices each storefront in (ISO 3166-1 alpha-3 → ISO 4217).
    static let storefrontCurrencies: [String: String] = {
        var table: [String: String] = [
            "USA": "USD", "GBR": "GBP", "JPN": "JPY", "KOR": "KRW", "CAN": "CAD", "AUS": "AUD", "NZL": "NZD", "CHN": "CNY",
            "HKG": "HKD", "TWN": "TWD", "SGP": "SGD", "IND": "INR", "IDN": "IDR", "THA": "THB", "MYS": "MYR", "PHL": "PHP",
            "VNM": "VND", "PAK": "PKR", "KAZ": "KZT", "BRA": "BRL", "MEX": "MXN", "CHL": "CLP", "COL": "COP", "PER": "PEN",
            "CHE": "CHF", "LIE": "CHF", "SWE": "SEK", "NOR": "NOK", "DNK": "DKK", "POL": "PLN", "CZE": "CZK", "HUN": "HUF",
            "ROU": "RON", "BGR": "BGN", "TUR": "TRY", "RUS": "RUB", "ISR": "ILS", "SAU": "SAR", "ARE": "AED", "QAT": "QAR",
            "EGY": "EGP", "ZAF": "ZAR", "NGA": "NGN", "TZA": "TZS",
        ]
        for euro in ["AUT", "BEL", "CYP", "DEU", "ESP", "EST", "FIN", "FRA", "GRC", "HRV", "IRL", "ITA", "LTU", "LUX", "LVA",
                     "MLT", "NLD", "PRT", "SVK", "SVN"] {
            table[euro] = "EUR"
        }
        return table
    }()
}

extension ISO4217 {
    /// How many minor-unit digits a currency has: 0 for JPY, KRW and the like, 3 for BHD, KWD…, else 2.
    public static func minorDigits(_ code: String) -> Int {
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF": 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": 3
        default: 2
        }
    }
}
