import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that provides `@AutoCoding`, `@Uncodable`, `@ArchiveKey` and `@ArchiveAs`.
@main
struct AutoCodingPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [AutoCodingMacro.self, MarkerMacro.self]
}

/// `@Uncodable`, `@ArchiveKey` and `@ArchiveAs` only mark properties for `@AutoCoding`; they generate nothing.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
