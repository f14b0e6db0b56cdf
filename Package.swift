// swift-tools-version:6.0
import Foundation
import PackageDescription

// The version lives in VERSION alone; scripts/package adds the commit.
let version =
    (try? String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("VERSION"),
        encoding: .utf8
    ))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"

// The target graph is the architecture: PinwatchCore depends on nothing of
// ours; only PinwatchProbe imports COpenSSL (and CLinux for its event
// loop, as PinwatchMonitor does to spawn hooks), besides the local world
// the demo and the tests run (PinwatchLocalWorld); only PinwatchTerminal
// (the painter and the keyboard) imports CNCurses.
// The product's own modules instantiate generic types (a Dictionary keyed by
// one of our types, say) through metadata accessors instead of mangled names:
// resolving a mangled name checks each generic requirement by scanning every
// protocol conformance record in the binary, a measurable part of `check`'s
// start-up (figures: Benchmarks/README.md, "Figures moved out of code
// comments"; docs/DECISIONS.md, "Performance log").
let startupSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
]

let package = Package(
    name: "pinwatch",
    // Linux only (epoll, glibc, Debian's library layout): no `platforms`
    // entry, since the only ones SwiftPM takes are Apple's.
    products: [
        .executable(name: "pinwatch", targets: ["pinwatch"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // `serve`: SwiftNIO's HTTP/1 server (bounded request heads) and the
        // standard logging API. Only the pinwatch-serve executable links NIO.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // epoll and eventfd, which Swift's Glibc module leaves out.
        .systemLibrary(name: "CLinux"),
        // The history store's database: the system's libsqlite3, one
        // small C API instead of a Swift database package (see DECISIONS).
        // libcurl, for the fleet dashboard's one query.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // zlib, for `serve`'s gzip answers: the cycle's text deflated once
        // per render (NIOHTTPCompression compresses each answer anew).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The dashboard's ncursesw and the tinfo it needs; no pkgConfig:
        // ncursesw's .pc adds -D flags SwiftPM refuses.
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        // libxml2 is opened on first use (Sources/CLazyLibrary): linked,
        // the loader would map it and the ICU it brings at every start
        // (Benchmarks/README.md, "Performance rule review").
        .target(name: "CLazyLibrary"),
        .target(name: "CBuildInfo", cSettings: [.define("PINWATCH_VERSION", to: "\"\(version)\"")]),
        // libxml2's streaming reader, for Android network security configs,
        // built against libxml2-dev's header (outside the default include
        // path, and kept out of the module's own header).
        .target(
            name: "CXMLReader",
            dependencies: ["CLazyLibrary"],
            cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]
        ),
        .target(
            name: "PinwatchCore",
            dependencies: [.product(name: "Yams", package: "Yams")],
            swiftSettings: startupSettings
        ),
        // What the process reads from its system: regular files (bounded,
        // FIFOs and devices refused) and the environment. Below every
        // module that reads a file (the engine's trust bundles, importers,
        // themes), so Core stays pure.
        .target(
            name: "PinwatchSystem",
            dependencies: ["PinwatchCore"],
            swiftSettings: startupSettings
        ),
        // Pins from the clients' own files (Android, TrustKit, OkHttp, curl,
        // HPKP, signed lists): pure parsing, XML through libxml2's reader.
        .target(
            name: "PinwatchImport",
            dependencies: ["PinwatchCore", "PinwatchSystem", "CXMLReader"],
            swiftSettings: startupSettings
        ),
        .target(
            name: "PinwatchProbe",
            dependencies: ["PinwatchCore", "PinwatchSystem", "COpenSSL", "CLinux"],
            // C pointers and Dispatch callbacks: thread confinement is by
            // queue and event loop, which Swift 6's checker cannot see.
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        // The CA catalogue (catalogue/, embedded by scripts/catalogue-embed),
        // the user's newer families and `catalogue:`: parsed and verified
        // through PinwatchProbe's certificates, no OpenSSL of its own.
        .target(
            name: "PinwatchCatalogue",
            dependencies: ["PinwatchCore", "PinwatchProbe", .product(name: "Yams", package: "Yams"), "PinwatchSystem"],
            swiftSettings: startupSettings
        ),
        // A PKI and TLS servers in memory on 127.0.0.1 (LocalPKI,
        // LocalServers, LocalWorld): the demo's world, every test fleet's and
        // the benchmarks', built on PinwatchProbe's `package` API.
        .target(
            name: "PinwatchLocalWorld",
            dependencies: ["PinwatchProbe", "PinwatchCore", "COpenSSL", "CZlib"],
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        // The history store: chains and statuses per host across restarts.
        .target(
            name: "PinwatchHistory",
            dependencies: ["PinwatchCore", "PinwatchSystem", "CSQLite"],
            swiftSettings: startupSettings
        ),
        // What both front ends run: configuration lookup and loading (with
        // certificate files, list signatures and downloads wired in), the
        // poll pipeline (`HostPoller`), alert hooks, and the `Monitor` loop.
        .target(
            name: "PinwatchMonitor",
            dependencies: [
                "PinwatchCore", "PinwatchSystem", "PinwatchProbe", "PinwatchImport", "PinwatchTransfer", "PinwatchCT", "CLinux",
            ],
            // Dispatch callbacks and a hook thread confined by locks.
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        // The exporter's published metrics and logging. No OpenSSL, no
        // ncurses, no HTTP.
        .target(
            name: "PinwatchService",
            dependencies: [
                "PinwatchCore", "PinwatchProbe", "PinwatchMonitor", "CBuildInfo",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: startupSettings
        ),
        // `pinwatch serve` runs this executable (installed beside pinwatch):
        // SwiftNIO takes minutes to build, and the dashboard and the demo
        // do not need it.
        .executableTarget(
            name: "pinwatch-serve",
            dependencies: [
                "PinwatchCore", "PinwatchSystem", "PinwatchProbe", "PinwatchMonitor", "PinwatchService", "PinwatchHistory",
                "PinwatchCatalogue", "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        .target(
            name: "PinwatchUI",
            dependencies: ["PinwatchCore", "PinwatchSystem", .product(name: "Yams", package: "Yams")],
            swiftSettings: startupSettings
        ),
        // Bounded HTTP GETs through the system's libcurl (no HTTP of our
        // own; see DECISIONS for why not URLSession): the fleet's query and
        // the CRLs revocation is looked up in.
        .target(
            name: "PinwatchTransfer",
            dependencies: ["PinwatchCore", "CCurl"],
            swiftSettings: startupSettings
        ),
        // `watch --prometheus`: a fleet's verdicts read back from a
        // Prometheus server.
        .target(
            name: "PinwatchFleet",
            dependencies: ["PinwatchCore", "PinwatchTransfer"],
            swiftSettings: startupSettings
        ),
        .target(
            name: "PinwatchTerminal",
            dependencies: ["PinwatchUI", "CNCurses"],
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        // Certificate Transparency: log lists, the RFC 6962 client (through
        // PinwatchTransfer) and the Merkle tree checks that let only entries
        // of a verified tree through; signatures are checked by PinwatchProbe
        // (no OpenSSL here).
        .target(
            name: "PinwatchCT",
            dependencies: ["PinwatchCore", "PinwatchProbe", "PinwatchTransfer", "PinwatchSystem"],
            swiftSettings: startupSettings
        ),
        .executableTarget(
            name: "pinwatch",
            dependencies: [
                "PinwatchCore", "PinwatchSystem", "PinwatchProbe", "PinwatchMonitor", "PinwatchService", "PinwatchUI",
                "PinwatchTerminal", "PinwatchHistory", "PinwatchImport", "PinwatchCatalogue", "PinwatchLocalWorld", "PinwatchFleet",
                "PinwatchCT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)] + startupSettings
        ),
        // Benchmarks/run.sh times redraws with it; not part of the product.
        .executableTarget(
            name: "pinwatch-frame-bench",
            dependencies: ["PinwatchCore", "PinwatchUI", "PinwatchTerminal"],
            path: "Benchmarks/FrameBench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Peers and helpers only the tests need (a plaintext server, a
        // flooding server, nginx with two certificates, closed ports, key
        // files, process-wide server totals), built on PinwatchProbe's and
        // PinwatchLocalWorld's `package` internals.
        .target(
            name: "PinwatchTestSupport",
            dependencies: ["PinwatchProbe", "PinwatchLocalWorld", "PinwatchCore", "COpenSSL", "CLinux"],
            path: "Tests/PinwatchTestSupport",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Benchmarks/serve.sh times /metrics rendering with it.
        .executableTarget(
            name: "pinwatch-metrics-bench",
            dependencies: ["PinwatchCore"],
            path: "Benchmarks/MetricsBench"
        ),
        // Benchmarks/fleet-100k.sh: shard exporters' text of a synthetic
        // fleet, rendered by the exporter's renderer, for a real Prometheus.
        .executableTarget(
            name: "pinwatch-fleet-bench",
            dependencies: ["PinwatchCore"],
            path: "Benchmarks/FleetBench"
        ),
        // scripts/catalogue-embed runs it: the built-in certificates' facts,
        // computed once by the probe's code and embedded beside their PEMs.
        // scripts/catalogue-derive: the issuer graph from CCADB's reports.
        .executableTarget(
            name: "pinwatch-catalogue-derive",
            dependencies: ["PinwatchCatalogue", "PinwatchCore", "PinwatchProbe"],
            path: "scripts/CatalogueDerive"
        ),
        .executableTarget(
            name: "pinwatch-catalogue-facts",
            dependencies: ["PinwatchCore", "PinwatchProbe"],
            path: "scripts/CatalogueFacts"
        ),
        // scripts/fuzz builds it with libFuzzer; an ordinary build replays
        // the committed corpus (Fuzz/corpus) for the tests.
        .executableTarget(
            name: "pinwatch-fuzz",
            dependencies: ["PinwatchCore", "PinwatchProbe", "PinwatchImport", "PinwatchCatalogue", "PinwatchFleet"],
            path: "Fuzz/pinwatch-fuzz",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Benchmarks/run.sh: CPU per host of a first cycle and of later ones
        // (chains verified before are served from the cache).
        .executableTarget(
            name: "pinwatch-cycle-bench",
            dependencies: ["PinwatchCore", "PinwatchProbe", "PinwatchMonitor", "PinwatchLocalWorld", "PinwatchSystem"],
            path: "Benchmarks/CycleBench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Benchmarks/history.sh: the history store's cost per cycle and size.
        .executableTarget(
            name: "pinwatch-history-bench",
            dependencies: ["PinwatchCore", "PinwatchHistory"],
            path: "Benchmarks/HistoryBench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Benchmarks/ct.sh: the CT follower against certspotter on the local log.
        .executableTarget(
            name: "pinwatch-ct-bench",
            dependencies: ["PinwatchCT", "PinwatchProbe", "PinwatchLocalWorld", "PinwatchTestSupport", "PinwatchSystem"],
            path: "Benchmarks/CTBench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // scripts/soak's mixed fleet (good, leaf-only, untrusted, refused,
        // black hole, slow handshake, flapping); not part of the product.
        .executableTarget(
            name: "pinwatch-soak-lab",
            dependencies: ["PinwatchCore", "PinwatchProbe", "PinwatchLocalWorld", "PinwatchTestSupport"],
            path: "Benchmarks/SoakLab",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PinwatchCoreTests", dependencies: ["PinwatchCore", "PinwatchSystem", .product(name: "Yams", package: "Yams")]),
        .testTarget(
            name: "PinwatchImportTests", dependencies: ["PinwatchImport", "PinwatchCore", .product(name: "Yams", package: "Yams")]),
        .testTarget(
            name: "PinwatchProbeTests",
            dependencies: [
                "PinwatchProbe", "PinwatchLocalWorld", "PinwatchMonitor", "PinwatchHistory", "PinwatchCore", "PinwatchTestSupport",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The Monitor loop against a fake poller and clock: no sockets.
        .testTarget(
            name: "PinwatchMonitorTests",
            dependencies: ["PinwatchMonitor", "PinwatchSystem", "PinwatchCore", "PinwatchTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PinwatchCatalogueTests",
            dependencies: [
                "PinwatchCatalogue", "PinwatchProbe", "PinwatchLocalWorld", "PinwatchSystem", "PinwatchCore", "PinwatchTestSupport",
            ],
            // Real certificates the tests read from disk, with SOURCES.md.
            exclude: ["Fixtures"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "PinwatchHistoryTests",
            dependencies: ["PinwatchHistory", "PinwatchCore"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "PinwatchUITests", dependencies: ["PinwatchUI", "PinwatchCore"]),
        .testTarget(
            name: "PinwatchCTTests",
            dependencies: [
                "PinwatchCT", "PinwatchProbe", "PinwatchLocalWorld", "PinwatchCore", "PinwatchHistory", "PinwatchTransfer",
                "PinwatchTestSupport", "PinwatchMonitor",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "PinwatchFleetTests", dependencies: ["PinwatchFleet", "PinwatchCore", "PinwatchTestSupport"]),
        .testTarget(
            name: "PinwatchEndToEndTests",
            dependencies: [
                "PinwatchProbe", "PinwatchLocalWorld", "PinwatchCore", "PinwatchMonitor", "PinwatchService", "PinwatchTestSupport",
                "pinwatch-serve",
                "pinwatch-fuzz",
                // The plain command-line reader's unit tests (CheckCommandLineTests).
                "pinwatch",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
