/// A variable of an environment as curl and OpenSSL read it: an empty value
/// counts as unset (`http_proxy=` turns the proxy off, R55).
public enum EnvironmentSetting {
    public static func value(_ name: String, in environment: [String: String]) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
