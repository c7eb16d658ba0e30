import Foundation
import NIOConcurrencyHelpers
import RPCCore
import XCTest

@testable import RPCServer

/// The RPC door's transport against its requirements (R70, R71, R73), on
/// a real socket with a trivial `respond`: what aria2c 1.36 puts on the
/// wire is what these expect.
final class RPCServerTests: XCTestCase {
    private var servers: [RPCServer] = []

    override func tearDown() {
        for server in servers {
            server.stop()
            server.waitUntilStopped()
        }
        servers = []
        super.tearDown()
    }

    /// A started server on a free loopback port; stopped in tearDown.
    private func startServer(
        allowOriginAll: Bool = false, hasSecret: Bool = false, maxRequestBytes: Int = 2 * 1024 * 1024,
        respond: @escaping @Sendable ([UInt8]) -> Aria2Reply? = { Aria2Reply(body: $0) },
        isBrief: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }
    ) throws -> (RPCServer, Int) {
        let server = RPCServer(
            configuration: RPCServerConfiguration(
                port: 0, allowOriginAll: allowOriginAll, hasSecret: hasSecret, maxRequestBytes: maxRequestBytes),
            call: { body in Aria2Call(isBrief: isBrief(body)) { respond(body) } })
        try server.start()
        servers.append(server)
        return (server, try XCTUnwrap(server.localPort))
    }

    private func post(_ body: String, port: Int, headers: String = "") throws -> LoopbackClient.Response {
        let client = try LoopbackClient(port: port)
        try client.send("POST /jsonrpc HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\(headers)"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return try client.readResponse()
    }

    // MARK: HTTP POST

    func testPostBodyGoesToRespondAndTheReplyComesBackAsJSONRPC() throws {
        let (_, port) = try startServer(respond: { body in
            Aria2Reply(body: Array(#"{"id":"q","jsonrpc":"2.0","result":"#.utf8) + body + Array("}".utf8))
        })
        let response = try post(#"{"x":1}"#, port: port)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-type"], "application/json-rpc")
        XCTAssertEqual(response.headers["cache-control"], "no-cache")
        XCTAssertNotNil(response.headers["date"])
        XCTAssertNil(response.headers["access-control-allow-origin"])
        XCTAssertEqual(response.text, #"{"id":"q","jsonrpc":"2.0","result":{"x":1}}"#)
    }

    /// A brief call (`Aria2Call.isBrief`) is answered on the event loop's
    /// thread (NIO names them `NIO-ELT-…`), any other on the pool's.
    func testABriefCallIsAnsweredOnTheEventLoopAndTheOthersOnThePool() throws {
        let threads = NIOLockedValueBox<[String]>([])
        let (_, port) = try startServer(respond: { body in
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            threads.withLockedValue { $0.append(name) }
            return Aria2Reply(body: body)
        }, isBrief: { $0 == Array("[1]".utf8) })
        for body in ["[1]", "[2]", "[1]"] {
            XCTAssertEqual(try post(body, port: port).text, body)
        }
        let names = threads.withLockedValue { $0 }
        XCTAssertEqual(names.map { $0.hasPrefix("NIO-ELT") }, [true, false, true], "\(names)")
    }

    func testPostKeepsTheConnectionForTheNextCall() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        for number in 1...3 {
            let body = "[\(number)]"
            try client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, body)
        }
    }

    func testErrorRepliesGetAria2sHTTPStatusAndClose() throws {
        let replies: [(String, Aria2Error?, Int)] = [
            (#"{"id":"q","jsonrpc":"2.0","error":{"code":1,"message":"Invalid GID zz"}}"#, .failure("Invalid GID zz"), 400),
            (#"{"id":null,"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request."}}"#, .invalidRequest, 400),
            (#"{"id":"q","jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found."}}"#, .methodNotFound("x"), 404),
            (#"{"id":null,"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error."}}"#, .parse, 500),
            (#"[{"id":"q","jsonrpc":"2.0","error":{"code":1,"message":"No such method: x"}}]"#, nil, 200),
        ]
        for (reply, error, status) in replies {
            let (_, port) = try startServer(respond: { _ in Aria2Reply(body: Array(reply.utf8), error: error) })
            let response = try post("{}", port: port)
            XCTAssertEqual(response.status, status, reply)
            XCTAssertEqual(response.text, reply)
            XCTAssertEqual(response.headers["connection"], status == 200 ? nil : "close", reply)
        }
    }

    func testUnauthorizedIsAnsweredAfterASecondAsAria2cDoes() throws {
        let reply = #"{"id":"q","jsonrpc":"2.0","error":{"code":1,"message":"Unauthorized"}}"#
        let (_, port) = try startServer(respond: { _ in
            Aria2Reply(body: Array(reply.utf8), error: .unauthorized)
        })
        let started = Date()
        let response = try post("{}", port: port)
        XCTAssertEqual(response.status, 400)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.9)
    }

    func testNilReplyIsAnEmpty200() throws {
        let (_, port) = try startServer(respond: { _ in nil })
        let response = try post(#"{"method":"aria2.getVersion"}"#, port: port)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, [])
    }

    // MARK: HTTP GET

    func testGetWithJsonCallbackWrapsTheReplyAsJavaScript() throws {
        let (_, port) = try startServer()
        let params = Data("[\"token:s\",1]".utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "%3D")
        let client = try LoopbackClient(port: port)
        try client.send("GET /jsonrpc?method=aria2.tellStatus&id=7&params=\(params)&jsoncallback=cb HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-type"], "text/javascript")
        XCTAssertEqual(response.text, #"cb({"jsonrpc":"2.0","method":"aria2.tellStatus","id":"7","params":["token:s",1]})"#)
    }

    func testGetWithoutCallbackIsPlainJSONRPC() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        try client.send("GET /jsonrpc?method=aria2.getVersion&id=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["content-type"], "application/json-rpc")
        XCTAssertEqual(response.text, #"{"jsonrpc":"2.0","method":"aria2.getVersion","id":"1"}"#)
    }

    // MARK: Paths and bad requests

    func testOtherPathsAre404AsAria2c() throws {
        let (_, port) = try startServer(respond: { _ in XCTFail("respond called"); return nil })
        for request in ["GET /other HTTP/1.1", "POST /rpc HTTP/1.1", "PUT /jsonrpc HTTP/1.1"] {
            let client = try LoopbackClient(port: port)
            try client.send("\(request)\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 404, request)
        }
    }

    func testBadHTTPIs400AndTheServerGoesOn() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        try client.send("GARBAGE\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 400)
        XCTAssertEqual(try post("[1]", port: port).status, 200)
    }

    // MARK: Origin and CORS (R71)

    func testRequestWithOriginIsRefusedWithoutSecret() throws {
        let called = NIOLockedValueBox(false)
        let (_, port) = try startServer(respond: { body in called.withLockedValue { $0 = true }; return Aria2Reply(body: body) })
        let response = try post("[1]", port: port, headers: "Origin: http://evil.example\r\n")
        XCTAssertEqual(response.status, 403)
        XCTAssertFalse(called.withLockedValue { $0 }, "a refused request must not reach the dispatcher")
    }

    /// The door's own loopback origin is no web page's: websocket-client
    /// (aria2p's) sends it by default.
    func testTheDoorsOwnLoopbackOriginIsNotForeign() throws {
        let (_, port) = try startServer()
        XCTAssertEqual(try post("[1]", port: port, headers: "Origin: http://localhost\r\n").status, 200)
        XCTAssertEqual(try post("[1]", port: port, headers: "Origin: http://localhost.evil.example\r\n").status, 403)
        XCTAssertTrue(RPCServerConfiguration.isOwnLoopbackOrigin("http://127.0.0.1:6800", host: "127.0.0.1:6800"))
        XCTAssertTrue(RPCServerConfiguration.isOwnLoopbackOrigin("http://[::1]:6800", host: "[::1]:6800"))
        XCTAssertFalse(RPCServerConfiguration.isOwnLoopbackOrigin("http://127.0.0.1:6801", host: "127.0.0.1:6800"))
        XCTAssertFalse(RPCServerConfiguration.isOwnLoopbackOrigin("http://example.com:6800", host: "example.com:6800"))
        XCTAssertFalse(RPCServerConfiguration.isOwnLoopbackOrigin("null", host: "127.0.0.1:6800"))
    }

    /// A `<script>` or `<img>` sends the GET form without `Origin`; what
    /// the browser adds instead still tells a page (R71).
    func testAGetAWebPageMadeIsRefusedWithoutSecret() throws {
        let called = NIOLockedValueBox(0)
        let (_, port) = try startServer(respond: { body in called.withLockedValue { $0 += 1 }; return Aria2Reply(body: body) })
        func get(_ headers: String) throws -> Int {
            let client = try LoopbackClient(port: port)
            try client.send("GET /jsonrpc?method=aria2.getVersion&id=1 HTTP/1.1\r\n\(headers)\r\n")
            return try client.readResponse().status
        }
        XCTAssertEqual(try get("Host: 127.0.0.1:\(port)\r\nSec-Fetch-Site: cross-site\r\nSec-Fetch-Dest: script\r\n"), 403)
        XCTAssertEqual(try get("Host: evil.example:\(port)\r\nSec-Fetch-Site: same-origin\r\n"), 403, "DNS rebinding")
        XCTAssertEqual(try get("Host: 127.0.0.1:\(port)\r\nReferer: http://evil.example/page.html\r\n"), 403)
        XCTAssertEqual(called.withLockedValue { $0 }, 0, "a refused request must not reach the dispatcher")
        XCTAssertEqual(try get("Host: 127.0.0.1:\(port)\r\n"), 200, "curl, scripts")
        XCTAssertEqual(try get("Host: localhost:\(port)\r\nSec-Fetch-Site: none\r\n"), 200, "typed into the address bar")
        XCTAssertEqual(try get("Host: 127.0.0.1:\(port)\r\nReferer: http://127.0.0.1:\(port)/jsonrpc\r\n"), 200)
        XCTAssertEqual(called.withLockedValue { $0 }, 3)
    }

    func testWhatTellsAWebPage() {
        typealias C = RPCServerConfiguration
        XCTAssertFalse(C.comesFromWebPage(origin: nil, referer: nil, fetchSite: nil, host: "x"), "an odd client, not a page")
        XCTAssertTrue(C.comesFromWebPage(origin: nil, referer: nil, fetchSite: "same-site", host: "localhost:6800"))
        XCTAssertFalse(C.comesFromWebPage(origin: nil, referer: nil, fetchSite: "same-origin", host: "[::1]:6800"))
        XCTAssertTrue(C.comesFromWebPage(origin: nil, referer: "http://127.0.0.1:6801/x", fetchSite: nil, host: "127.0.0.1:6800"))
        XCTAssertEqual(C.originOf("https://a.example:8/p/q?x#y"), "https://a.example:8")
        XCTAssertEqual(C.originOf("http://a.example"), "http://a.example")
    }

    func testRequestWithOriginIsServedWithSecretButWithoutCORSGrant() throws {
        let (_, port) = try startServer(hasSecret: true)
        let response = try post("[1]", port: port, headers: "Origin: http://a.example\r\n")
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.headers["access-control-allow-origin"])
    }

    func testRequestWithOriginIsServedWithAllowOriginAllAndGrantsStar() throws {
        let (_, port) = try startServer(allowOriginAll: true)
        let response = try post("[1]", port: port, headers: "Origin: http://a.example\r\n")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["access-control-allow-origin"], "*")
    }

    /// A browser's CORS preflight before a JSON POST.
    private func preflight(port: Int) throws -> LoopbackClient.Response {
        let client = try LoopbackClient(port: port)
        try client.send("OPTIONS /jsonrpc HTTP/1.1\r\nHost: x\r\nOrigin: http://a.example\r\n"
            + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n")
        return try client.readResponse()
    }

    func testPreflightWithAllowOriginAllIsAnsweredAsAria2c() throws {
        let (_, port) = try startServer(allowOriginAll: true)
        let response = try preflight(port: port)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["access-control-allow-origin"], "*")
        XCTAssertEqual(response.headers["access-control-allow-methods"], "POST, GET, OPTIONS")
        XCTAssertEqual(response.headers["access-control-allow-headers"], "content-type")
        XCTAssertEqual(response.headers["access-control-max-age"], "1728000")
        XCTAssertEqual(response.body, [])
    }

    func testPreflightWithoutAllowOriginAll() throws {
        // Without a secret: refused like any request from a page.
        let (_, port) = try startServer()
        XCTAssertEqual(try preflight(port: port).status, 403)
        // With a secret: aria2c's 200 with no grant, which the browser
        // reads as a refusal.
        let (_, securedPort) = try startServer(hasSecret: true)
        let response = try preflight(port: securedPort)
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.headers["access-control-allow-origin"])
        XCTAssertNil(response.headers["access-control-allow-methods"])
    }

    // MARK: Size (R71)

    func testBodyOver2MiBIsRefusedUnread() throws {
        let (_, port) = try startServer(respond: { _ in XCTFail("respond called"); return nil })
        let client = try LoopbackClient(port: port)
        let size = 3 * 1024 * 1024
        try client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.headers["connection"], "close")
        XCTAssertTrue(response.text.contains(#""code":-32600"#), response.text)
        XCTAssertTrue(response.text.contains("over 2 MiB"), response.text)
        // The rest of the body is not read: the server has closed its side.
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testChunkedBodyGrowingOverTheLimitIsRefusedAndTheServerStillAnswers() throws {
        let (_, port) = try startServer(maxRequestBytes: 64 * 1024)
        let client = try LoopbackClient(port: port)
        try client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: "a", count: 16 * 1024)
        for _ in 0..<5 {
            try? client.send(String(16 * 1024, radix: 16) + "\r\n" + chunk + "\r\n")
        }
        XCTAssertEqual(try client.readResponse().status, 413)
        XCTAssertEqual(try post("[1]", port: port).status, 200)
    }

    func test3MiBBodySentWholeIsRefusedAndTheServerStillAnswers() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        let size = 3 * 1024 * 1024
        // Sent whole, as a careless client does: the send may fail once the
        // server closes; what matters is that the server answers after.
        try? client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n"
            + String(repeating: "a", count: size))
        let response = try post("[1]", port: port)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "[1]")
    }

    // MARK: WebSocket (R70, R73)

    func testWebSocketHandshakeAndOneCallRoundTrip() throws {
        let (_, port) = try startServer(respond: { body in Aria2Reply(body: Array("reply:".utf8) + body) })
        let client = try LoopbackClient(port: port)
        let handshake = try client.webSocketHandshake()
        XCTAssertEqual(handshake.status, 101)
        XCTAssertEqual(handshake.headers["sec-websocket-accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        try client.sendFrame(opcode: 0x1, payload: Array(#"{"method":"aria2.getVersion"}"#.utf8))
        let frame = try client.readFrame()
        XCTAssertEqual(frame.opcode, 0x1)
        XCTAssertEqual(String(decoding: frame.payload, as: UTF8.self), #"reply:{"method":"aria2.getVersion"}"#)
    }

    func testWebSocketFragmentedMessagePingAndClose() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        XCTAssertEqual(try client.webSocketHandshake().status, 101)
        try client.sendFrame(opcode: 0x1, payload: Array("[1,".utf8), fin: false)
        try client.sendFrame(opcode: 0x9, payload: Array("hi".utf8))  // a ping between fragments
        try client.sendFrame(opcode: 0x0, payload: Array("2]".utf8))
        let pong = try client.readFrame()
        XCTAssertEqual(pong.opcode, 0xA)
        XCTAssertEqual(pong.payload, Array("hi".utf8))
        let reply = try client.readFrame()
        XCTAssertEqual(String(decoding: reply.payload, as: UTF8.self), "[1,2]")
        try client.sendFrame(opcode: 0x8, payload: [0x03, 0xE8])
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertEqual(close.payload, [0x03, 0xE8])
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testWebSocketMessageOverTheLimitGetsAJSONRPCErrorAndTheConnectionGoesOn() throws {
        let (_, port) = try startServer(maxRequestBytes: 1024)
        let client = try LoopbackClient(port: port)
        XCTAssertEqual(try client.webSocketHandshake().status, 101)
        try client.sendFrame(opcode: 0x1, payload: [UInt8](repeating: 0x61, count: 800), fin: false)
        for _ in 0..<5 {
            try client.sendFrame(opcode: 0x0, payload: [UInt8](repeating: 0x61, count: 800), fin: false)
        }
        try client.sendFrame(opcode: 0x0, payload: [UInt8](repeating: 0x61, count: 800))
        try client.sendFrame(opcode: 0x1, payload: Array("[1]".utf8))
        let refusal = String(decoding: try client.readFrame().payload, as: UTF8.self)
        XCTAssertTrue(refusal.contains(#""code":-32600"#), refusal)
        XCTAssertTrue(refusal.contains("over 1024 bytes"), refusal)
        XCTAssertEqual(try client.readFrame().payload, Array("[1]".utf8))
    }

    func testWebSocketSingleFrameOverTheLimitGetsAJSONRPCErrorThenA1009CloseAndTheServerGoesOn() throws {
        let (_, port) = try startServer(maxRequestBytes: 1024)
        let client = try LoopbackClient(port: port)
        XCTAssertEqual(try client.webSocketHandshake().status, 101)
        // A call before it is answered first: replies keep their order.
        try client.sendFrame(opcode: 0x1, payload: Array("[1]".utf8))
        try client.sendFrame(opcode: 0x1, payload: [UInt8](repeating: 0x61, count: 2000))
        XCTAssertEqual(try client.readFrame().payload, Array("[1]".utf8))
        let refusal = try client.readFrame()
        XCTAssertEqual(refusal.opcode, 0x1)
        let text = String(decoding: refusal.payload, as: UTF8.self)
        XCTAssertTrue(text.contains(#""code":-32600"#) && text.contains("over 1024 bytes"), text)
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertEqual(close.payload, [0x03, 0xF1])  // 1009
        XCTAssertEqual(try post("[1]", port: port).status, 200)
    }

    func testWebSocketUpgradeWithOriginIsRefusedWithoutSecret() throws {
        let (_, port) = try startServer()
        let client = try LoopbackClient(port: port)
        let response = try client.webSocketHandshake(extraHeaders: "Origin: http://evil.example\r\n")
        XCTAssertEqual(response.status, 403)
    }

    func testWebSocketUpgradeRefusalsAsAria2c() throws {
        let (_, port) = try startServer()
        let wrongPath = try LoopbackClient(port: port)
        XCTAssertEqual(try wrongPath.webSocketHandshake(path: "/other").status, 404)
        let oldVersion = try LoopbackClient(port: port)
        try oldVersion.send("GET /jsonrpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 12\r\n\r\n")
        let response = try oldVersion.readResponse()
        XCTAssertEqual(response.status, 426)
        XCTAssertEqual(response.headers["sec-websocket-version"], "13")
    }

    func testBroadcastReachesEveryWebSocketClient() throws {
        let (server, port) = try startServer()
        let first = try LoopbackClient(port: port)
        let second = try LoopbackClient(port: port)
        XCTAssertEqual(try first.webSocketHandshake().status, 101)
        XCTAssertEqual(try second.webSocketHandshake().status, 101)
        // The 101 is written before the handler joins the clients: wait
        // (with a deadline) until both are registered.
        try waitUntil { (server.webSocketClientCount) == 2 }
        let note = #"{"jsonrpc":"2.0","method":"aria2.onDownloadComplete","params":[{"gid":"0000000000000007"}]}"#
        server.broadcast(Array(note.utf8))
        for client in [first, second] {
            let frame = try client.readFrame()
            XCTAssertEqual(frame.opcode, 0x1)
            XCTAssertEqual(String(decoding: frame.payload, as: UTF8.self), note)
        }
    }

    func testAThousandIdleWebSocketsDoNotStopServing() throws {
        let (server, port) = try startServer()
        var idle: [LoopbackClient] = []
        for _ in 0..<1000 {
            let client = try LoopbackClient(port: port)
            XCTAssertEqual(try client.webSocketHandshake().status, 101)
            idle.append(client)
        }
        try waitUntil(seconds: 10) { server.webSocketClientCount == 1000 }
        let started = Date()
        XCTAssertEqual(try post("[1]", port: port).text, "[1]")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        let active = try LoopbackClient(port: port)
        XCTAssertEqual(try active.webSocketHandshake().status, 101)
        try active.sendFrame(opcode: 0x1, payload: Array("[2]".utf8))
        XCTAssertEqual(try active.readFrame().payload, Array("[2]".utf8))
    }

    // MARK: Lifecycle

    func testPortInUseIsASentenceNamingThePort() throws {
        let (_, port) = try startServer()
        let second = RPCServer(configuration: RPCServerConfiguration(port: port),
                               call: { body in Aria2Call(isBrief: false) { Aria2Reply(body: body) } })
        XCTAssertThrowsError(try second.start()) { error in
            let message = (error as? RPCServerError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("port \(port) is in use"), message)
        }
        second.waitUntilStopped()  // a failed start leaves nothing running
    }

    func testListensOnIPv6LoopbackToo() throws {
        let (server, port) = try startServer()
        guard server.localAddresses.contains("[::1]:\(port)") else {
            throw XCTSkip("no IPv6 loopback here: \(server.localAddresses)")
        }
        let client = try LoopbackClient(port: port, host: "::1")
        try client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n[1]")
        XCTAssertEqual(try client.readResponse().text, "[1]")
    }

    func testStopClosesConnectionsAndTheListener() throws {
        let (server, port) = try startServer()
        let webSocket = try LoopbackClient(port: port)
        XCTAssertEqual(try webSocket.webSocketHandshake().status, 101)
        try waitUntil { server.webSocketClientCount == 1 }
        server.stop()
        server.stop()  // idempotent
        let stoppedAt = Date()
        server.waitUntilStopped()
        XCTAssertLessThan(Date().timeIntervalSince(stoppedAt), 5)
        let close = try webSocket.readFrame()
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertEqual(close.payload, [0x03, 0xE9])  // 1001 going away
        XCTAssertThrowsError(try LoopbackClient(port: port))
    }

    /// `aria2.shutdown` stops the server from inside its own call: the
    /// reply still goes out, then the server stops (R72).
    func testStopFromInsideACallSendsItsReplyThenStops() throws {
        let (server, port) = try startServerThatStopsInItsCall()
        let client = try LoopbackClient(port: port)
        try client.send("POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n[1]")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "OK:[1]")
        try waitStopped(server)
        XCTAssertThrowsError(try LoopbackClient(port: port))
    }

    func testStopFromInsideAWebSocketCallSendsItsReplyBeforeGoingAway() throws {
        let (server, port) = try startServerThatStopsInItsCall()
        let client = try LoopbackClient(port: port)
        XCTAssertEqual(try client.webSocketHandshake().status, 101)
        try client.sendFrame(opcode: 0x1, payload: Array("[1]".utf8))
        let reply = try client.readFrame()
        XCTAssertEqual(reply.opcode, 0x1)
        XCTAssertEqual(String(decoding: reply.payload, as: UTF8.self), "OK:[1]")
        let close = try client.readFrame()
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertEqual(close.payload, [0x03, 0xE9])  // 1001 going away
        try waitStopped(server)
    }

    /// A server whose every call stops it, as `aria2.shutdown` does, and answers "OK:" and the body.
    private func startServerThatStopsInItsCall() throws -> (RPCServer, Int) {
        let box = NIOLockedValueBox<RPCServer?>(nil)
        let (server, port) = try startServer(respond: { body in
            box.withLockedValue { $0 }?.stop()
            return Aria2Reply(body: Array("OK:".utf8) + body)
        })
        box.withLockedValue { $0 = server }
        return (server, port)
    }

    private func waitStopped(_ server: RPCServer) throws {
        let expectation = expectation(description: "stopped")
        DispatchQueue.global().async {
            server.waitUntilStopped()
            expectation.fulfill()
        }
        wait(for: [expectation], timeout: 5)
    }

    private func waitUntil(seconds: Double = 5, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw LoopbackClient.Failure(description: "condition not met in \(seconds) s") }
            usleep(10_000)
        }
    }
}
