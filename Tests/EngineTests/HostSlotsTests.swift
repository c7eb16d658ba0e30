@testable import Engine
import XCTest

final class HostSlotsTests: XCTestCase {
    func test_R18_aHostGetsAtMostItsLimitAcrossTakers() {
        let slots = HostSlots(limit: 2)
        XCTAssertTrue(slots.take("http://a:"))
        XCTAssertTrue(slots.take("http://a:"))
        XCTAssertFalse(slots.take("http://a:"), "the third connection to one host waits")
        XCTAssertTrue(slots.take("http://b:"), "another host has its own slots")
        slots.release("http://a:")
        XCTAssertTrue(slots.take("http://a:"), "a released slot is taken again")
        XCTAssertFalse(slots.take("http://a:"))
    }

    func test_R18_releasesBeyondTakesAndALimitBelowOneAreHarmless() {
        let slots = HostSlots(limit: 0)
        XCTAssertEqual(slots.limit, 1, "at least one connection per host")
        slots.release("http://never-taken:")
        XCTAssertTrue(slots.take("http://never-taken:"))
        XCTAssertFalse(slots.take("http://never-taken:"), "a stray release added no slot")
    }
}
