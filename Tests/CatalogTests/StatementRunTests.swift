import Foundation
import GRDB
import XCTest
@testable import Catalog

/// `Statement.run` and `StatementBinder`, the catalog's own binding of
/// values straight to SQLite: every value comes back as it was bound.
final class StatementRunTests: XCTestCase {
    private func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE t (a, b, c, d, e)") }
        return queue
    }

    func test_everyKindOfValueComesBackAsBound() throws {
        let queue = try table()
        let blob = Data([0, 1, 2, 255])
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            try insert.run(["", "a\u{0}b ü ✓", Int64.min, 0.25, blob])
            try insert.run([nil, "second", 7, nil, nil])
        }
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT a, typeof(a) AS kind, b, hex(b) AS bHex, c, d, e FROM t ORDER BY rowid")
            XCTAssertEqual(rows[0]["a"] as String?, "", "an empty string is stored as one, not as NULL")
            XCTAssertEqual(rows[0]["kind"] as String?, "text")
            // GRDB reads text up to its first NUL; SQLite's hex shows all that was stored.
            XCTAssertEqual(rows[0]["bHex"] as String?, Data("a\u{0}b ü ✓".utf8).map { String(format: "%02X", $0) }.joined(),
                           "the whole string, past a NUL")
            XCTAssertEqual(rows[0]["c"] as Int64?, Int64.min)
            XCTAssertEqual(rows[0]["d"] as Double?, 0.25)
            XCTAssertEqual(rows[0]["e"] as Data?, blob)
            XCTAssertEqual(rows[1]["kind"] as String?, "null")
            XCTAssertEqual(rows[1]["b"] as String?, "second", "a reused statement binds afresh")
            XCTAssertEqual(rows[1]["c"] as Int64?, 7)
            XCTAssertNil(rows[1]["d"] as Double?)
        }
    }

    func test_aWrongNumberOfValuesIsRefusedAndStoresNothing() throws {
        let queue = try table()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            XCTAssertThrowsError(try insert.run(["only", "four", 3, 4])) { error in
                XCTAssertTrue("\(error)".contains("4 values for 5 parameters"), "\(error)")
            }
        }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }, 0)
    }

    func test_aFailingStatementSaysWhatSQLiteSaid() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE u (k INTEGER PRIMARY KEY)")
            let insert = try db.cachedStatement(sql: "INSERT INTO u VALUES (?)")
            try insert.run([1])
            XCTAssertThrowsError(try insert.run([1])) { error in
                XCTAssertTrue("\(error)".contains("constraint"), "\(error)")
            }
            try insert.run([2])  // the statement is usable after a failure
        }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM u") }, 2)
    }

    func test_typedBindsComeBackAsBound() throws {
        let queue = try table()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            try insert.run { (binder: inout StatementBinder) throws(CatalogError) in
                try binder.bind(Int64.max)
                try binder.bind(-3 as Int?)
                try binder.bind("" as String?)
                try binder.bind(date as Date?)
                try binder.bind(0.5 as Double?)
            }
            try insert.run { (binder: inout StatementBinder) throws(CatalogError) in
                try binder.bind(nil as Int64?)
                try binder.bind(nil as Int?)
                try binder.bind(nil as String?)
                try binder.bind(nil as Date?)
                try binder.bind(nil as Double?)
            }
        }
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT a, b, c, typeof(c) AS kind, d, e FROM t ORDER BY rowid")
            XCTAssertEqual(rows[0]["a"] as Int64?, Int64.max)
            XCTAssertEqual(rows[0]["b"] as Int?, -3)
            XCTAssertEqual(rows[0]["kind"] as String?, "text", "an empty string is stored as one, not as NULL")
            XCTAssertEqual(rows[0]["d"] as String?, "2023-11-14 22:13:20.123", "a date in GRDB's own text")
            XCTAssertEqual((rows[0]["d"] as Date?)?.timeIntervalSince1970 ?? 0, 1_700_000_000.123, accuracy: 0.0005)
            XCTAssertEqual(rows[0]["e"] as Double?, 0.5)
            let kinds = try String.fetchAll(db, sql: "SELECT typeof(a) || typeof(b) || typeof(c) || typeof(d) || typeof(e) FROM t ORDER BY rowid")
            XCTAssertEqual(kinds.last, "nullnullnullnullnull", "nil binds NULL")
        }
    }

    func test_moreValuesThanParametersAreRefusedAndStoreNothing() throws {
        let queue = try table()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            XCTAssertThrowsError(try insert.run([1, 2, 3, 4, 5, 6])) { error in
                XCTAssertTrue("\(error)".contains("INSERT INTO t"), "the statement is named: \(error)")
            }
            try insert.run([1, 2, 3, 4, 5])  // the statement is usable after a refusal
        }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }, 1)
    }
}
