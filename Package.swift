// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// Build with `-Xswiftc -DAUTOCODING_INTERNAL_CHECKS` to turn on `_checkInvariants()` in the engine.
let package = Package(
    name: "AutoCoding",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AutoCodingFast", targets: ["AutoCodingFast"]),
        .library(name: "AutoCoding", targets: ["AutoCoding"]),
        .executable(name: "autocoding", targets: ["AutoCodingCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CPlistShim",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "AutoCodingFast",
            dependencies: [
                "CPlistShim",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .macro(
            name: "AutoCodingMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "AutoCoding",
            dependencies: [
                "AutoCodingFast",
                "AutoCodingMacros",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The commands are a library nested in the executable's folder, so that tests can import them: once the
        // package has a macro target, SwiftPM builds test targets for the host and builds no module of an
        // executable for them.
        .target(
            name: "_AutoCodingCommands",
            dependencies: [
                "AutoCoding",
                "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/AutoCodingCLI/Commands"
        ),
        .executableTarget(
            name: "AutoCodingCLI",
            dependencies: [
                "AutoCoding",
                "_AutoCodingCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Commands"]
        ),
        .testTarget(
            name: "AutoCodingFastTests",
            dependencies: ["AutoCodingFast"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "AutoCodingTests",
            dependencies: ["AutoCoding"]
        ),
        .testTarget(
            name: "AutoCodingMacrosTests",
            dependencies: [
                "AutoCodingMacros",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "AutoCodingCLITests",
            dependencies: ["_AutoCodingCommands"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
