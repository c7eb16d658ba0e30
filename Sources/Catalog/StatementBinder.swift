import DownloadFSCore
import Foundation
import GRDB
import GRDBSQLite

/// Binds one run of a prepared statement's parameters in order, each value
/// by its own type straight through SQLite's C API (`Statement.run`).
///
/// Typed, not through an array of `DatabaseValueConvertible`: a task row is
/// 18–23 values, and boxing each into an existential, copying the array and
/// converting each back was about a sixth of a commit's time on the loop
/// (perf, 1,000 × 64 KiB). One call per column, not a parameter pack: a
/// pack bound optionals through unspecialised witnesses.
struct StatementBinder: ~Copyable {
    private let handle: OpaquePointer
    /// The next parameter's index (SQLite counts from 1).
    private(set) var next: CInt = 1

    init(_ handle: OpaquePointer) { self.handle = handle }

    mutating func bind(_ value: Int64?) throws(CatalogError) {
        try step(value.map { sqlite3_bind_int64(handle, next, $0) } ?? sqlite3_bind_null(handle, next))
    }

    mutating func bind(_ value: Int?) throws(CatalogError) { try bind(value.map(Int64.init)) }

    mutating func bind(_ value: Double?) throws(CatalogError) {
        try step(value.map { sqlite3_bind_double(handle, next, $0) } ?? sqlite3_bind_null(handle, next))
    }

    mutating func bind(_ value: String?) throws(CatalogError) {
        guard var text = value else { return try step(sqlite3_bind_null(handle, next)) }
        // An empty string is bound as one: a nil pointer would bind NULL.
        guard !text.isEmpty else { return try step(sqlite3_bind_text(handle, next, "", 0, Self.transient)) }
        let index = next
        try step(text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(handle, index, $0.baseAddress, CInt($0.count), Self.transient)
            }
        })
    }

    /// A date in GRDB's own text for it (`StoredDate`), without its formatter.
    mutating func bind(_ value: Date?) throws(CatalogError) {
        guard let value else { return try bind(nil as Int64?) }
        if let text = StoredDate.text(value) { return try bind(text) }
        try bind(value.databaseValue)
    }

    mutating func bind(_ value: DatabaseValue) throws(CatalogError) {
        switch value.storage {
        case .null: try bind(nil as Int64?)
        case .int64(let number): try bind(number)
        case .double(let number): try bind(number)
        case .string(let text): try bind(text)
        case .blob(let data):
            let index = next
            try step(data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), Self.transient) })
        }
    }

    /// Checks a bind's result and moves to the next parameter.
    private mutating func step(_ code: CInt) throws(CatalogError) {
        guard code == SQLITE_OK else { throw Self.failure(code, handle) }
        next += 1
    }

    /// The SQL is read only here: GRDB's `Statement.sql` makes a trimmed
    /// copy each time it is asked.
    static func failure(_ code: CInt, _ handle: OpaquePointer) -> CatalogError {
        CatalogError("SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))) in \(sql(handle))")
    }

    static func sql(_ handle: OpaquePointer) -> String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

    /// SQLITE_TRANSIENT: SQLite copies the value before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
