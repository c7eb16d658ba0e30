import GRDB
import GRDBSQLite

extension Statement {
    /// Runs the statement once with the parameters `bind` binds, in order,
    /// straight through SQLite's C API. GRDB's `execute(arguments:)`
    /// converts and validates the arguments and binds each string through
    /// nested closures: with about nine statements per small download, that
    /// was a fifth of the loop thread's time (`perf`, 1,000 × 64 KiB).
    func run(_ bind: (inout StatementBinder) throws(CatalogError) -> Void) throws(CatalogError) {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        var binder = StatementBinder(handle)
        try bind(&binder)
        let count = sqlite3_bind_parameter_count(handle)
        guard binder.next - 1 == count else {
            throw CatalogError("\(binder.next - 1) values for \(count) parameters in \(StatementBinder.sql(handle))")
        }
        let result = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard result == SQLITE_DONE else { throw StatementBinder.failure(result, handle) }
    }

    /// Runs the statement once with `values` bound in order.
    func run(_ values: [(any DatabaseValueConvertible)?]) throws(CatalogError) {
        try run { (binder: inout StatementBinder) throws(CatalogError) in
            for value in values { try binder.bind(value?.databaseValue ?? .null) }
        }
    }
}
