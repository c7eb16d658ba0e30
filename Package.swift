// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "downloadfs",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "downloadfs", targets: ["downloadfs"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    ],
    targets: [
        // C shims: typed wrappers over variadic and macro C APIs (see docs/design.md).
        .target(name: "CFuse", linkerSettings: [.linkedLibrary("fuse3")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "CDigest", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CCertificate", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CLinux"),
        // Threads made with pthread_create, so a thread that cannot be made is known.
        .target(name: "Threads", dependencies: ["CLinux"]),

        // The pure core: no I/O, exhaustively unit-tested.
        .target(name: "DownloadFSCore"),

        // Adapters.
        .target(name: "Catalog", dependencies: [
            "DownloadFSCore", "Threads",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .target(name: "Engine", dependencies: ["CCurl", "CDigest", "CLinux", "DownloadFSCore", "Threads"]),
        .target(name: "FuseKit", dependencies: ["CFuse", "CLinux", "Threads"]),
        .target(name: "DownloadFS", dependencies: [
            "DownloadFSCore", "Catalog", "Engine", "FuseKit", "CCertificate", "CLinux", "Threads",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // aria2's JSON-RPC door (R70–R73): what each call means, decided
        // without I/O against a `MountView` of the mount's files.
        .target(name: "RPCCore", dependencies: ["DownloadFSCore"]),
        // The door's transport: HTTP POST/GET/OPTIONS and WebSocket at
        // `/jsonrpc` on SwiftNIO; it hands each body to a `respond` closure
        // and knows nothing of what the calls mean.
        .target(name: "RPCServer", dependencies: [
            "DownloadFSCore",
            "RPCCore",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The man page, rendered from the command tree and the core's lists.
        .target(name: "Manual", dependencies: ["DownloadFSCore"]),
        .executableTarget(name: "downloadfs", dependencies: [
            "CLinux", "DownloadFS", "DownloadFSCore", "Manual", "RPCCore", "RPCServer", "Threads",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Helpers shared by test targets (not part of any product).
        .target(name: "TestSupport", dependencies: ["DownloadFSCore"], path: "Tests/TestSupport"),
        .testTarget(name: "DownloadFSCoreTests", dependencies: ["DownloadFSCore", "TestSupport"]),
        .testTarget(name: "CatalogTests", dependencies: [
            "Catalog", "DownloadFSCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "CCurl", "DownloadFSCore"]),
        .testTarget(name: "DownloadFSTests", dependencies: ["DownloadFS", "TestSupport"]),
        .testTarget(name: "RPCCoreTests", dependencies: ["RPCCore", "DownloadFSCore"]),
        .testTarget(name: "ManualTests", dependencies: ["Manual", "DownloadFSCore"]),
        .testTarget(name: "RPCServerTests", dependencies: ["RPCServer", "RPCCore"]),
        .testTarget(name: "DownloadFSCommandTests", dependencies: ["downloadfs", "CLinux", "RPCCore", "DownloadFSCore"]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
    ]
)
