/// An expected digest given with `checksum=ALGO=HEX` (R10, R56).
///
/// The hex is stored lower-cased so comparing it with a computed digest is a
/// plain string comparison.
public struct Checksum: Sendable, Equatable, Codable {
    /// The digest algorithms aria2's input files name; raw values are aria2's spellings.
    public enum Algorithm: String, Sendable, Codable, CaseIterable {
        case md5
        case sha1 = "sha-1"
        case sha256 = "sha-256"
        case sha512 = "sha-512"

        /// Looks an algorithm up by its aria2 name, ignoring case ("SHA-256" works).
        public init?(name: String) {
            self.init(rawValue: name.lowercased())
        }

        /// How many hex digits a digest of this algorithm has.
        public var hexLength: Int {
            switch self {
            case .md5: return 32
            case .sha1: return 40
            case .sha256: return 64
            case .sha512: return 128
            }
        }
    }

    public let algorithm: Algorithm
    /// The expected digest, lower-cased hex.
    public let hex: String

    public init(algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex.lowercased()
    }

    /// How many hex digits the digest must have.
    public var hexLength: Int { algorithm.hexLength }

    /// Parses `ALGO=HEX` (the part after `checksum=`); returns why it is malformed, or the checksum.
    public static func parse(_ spec: String) -> Result<Checksum, ChecksumSpecError> {
        guard let equals = spec.firstIndex(of: "=") else {
            return .failure(ChecksumSpecError(reason: "expected ALGO=HEX, e.g. sha-256=…"))
        }
        let name = String(spec[..<equals])
        let hex = String(spec[spec.index(after: equals)...])
        guard let algorithm = Algorithm(name: name) else {
            return .failure(ChecksumSpecError(
                reason: "unknown algorithm \"\(name)\" (use sha-256, sha-1, sha-512 or md5)"))
        }
        guard hex.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }) else {
            return .failure(ChecksumSpecError(reason: "\(algorithm.rawValue) digest is not hexadecimal"))
        }
        guard hex.utf8.count == algorithm.hexLength else {
            return .failure(ChecksumSpecError(
                reason: "\(algorithm.rawValue) digest must have \(algorithm.hexLength) hex digits, not \(hex.utf8.count)"))
        }
        return .success(Checksum(algorithm: algorithm, hex: hex))
    }
}
