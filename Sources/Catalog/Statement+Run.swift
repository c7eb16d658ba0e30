import GRDB
import GRDBSQLite

extension Statement {
    /// Binds `values` in order and runs the statement once, straight through
    /// SQLite's C API. GRDB's `execute(arguments:)` converts and validates
    /// the arguments and binds each string through nested closures: with
    /// about nine statements per small download, that was a fifth of the
    /// loop thread's time (`perf`, 1,000 × 64 KiB).
    func run(_ values: [(any DatabaseValueConvertible)?]) throws(CatalogError) {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw CatalogError("\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters in \(sql)")
        }
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            let code: CInt
            switch value?.databaseValue.storage ?? .null {
            case .null: code = sqlite3_bind_null(handle, index)
            case .int64(let number): code = sqlite3_bind_int64(handle, index, number)
            case .double(let number): code = sqlite3_bind_double(handle, index, number)
            case .string(let text) where text.isEmpty:
                code = sqlite3_bind_text(handle, index, "", 0, Self.transient)  // not NULL, which a nil pointer binds
            case .string(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text(handle, index, $0.baseAddress, CInt($0.count), Self.transient)
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
        let result = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard result == SQLITE_DONE else { throw failure(result) }
    }

    private func failure(_ code: CInt) -> CatalogError {
        CatalogError("SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))) in \(sql)")
    }

    /// SQLITE_TRANSIENT: SQLite copies the value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
