import SwiftDiagnostics
import SwiftSyntax

/// A stored property `@AutoCoding` archives, as read from the declaration's syntax.
struct StoredProperty {
    var name: String
    /// The archive key and the fallback keys read when it is missing.
    var keys: [String]
    /// The arguments of `@ArchiveAs(...)` as written (`.nullWhenNil, .referenced`), passed on to the encoding.
    var forms: String?
    var type: TypeSyntax?
    var hasDefault: Bool
    var isLet: Bool
    var isOptional: Bool
    var binding: PatternBindingSyntax
    var declaration: VariableDeclSyntax

    /// The stored properties of a type's members, leaving out static, computed, lazy and `@Uncodable` ones.
    static func all(in members: MemberBlockItemListSyntax) -> [StoredProperty] {
        var result: [StoredProperty] = []
        for member in members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = variable.modifiers.map(\.name.tokenKind)
            if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class))
                || modifiers.contains(.keyword(.lazy))
            {
                continue
            }
            if variable.attribute(named: "Uncodable") != nil { continue }
            let keyArguments = variable.attribute(named: "ArchiveKey").map(Self.stringArguments) ?? []
            let forms = variable.attribute(named: "ArchiveAs").flatMap(Self.argumentText)
            for binding in variable.bindings {
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                if let accessors = binding.accessorBlock {
                    // Only observers (willSet/didSet) keep a property stored.
                    switch accessors.accessors {
                    case .getter: continue
                    case .accessors(let list):
                        let kinds = list.map(\.accessorSpecifier.tokenKind)
                        if !kinds.allSatisfy({ $0 == .keyword(.willSet) || $0 == .keyword(.didSet) }) { continue }
                    }
                }
                let name = identifier.identifier.trimmedDescription.trimmingBackticks
                let type = binding.typeAnnotation?.type
                result.append(
                    StoredProperty(
                        name: name,
                        keys: keyArguments.isEmpty ? [name] : keyArguments,
                        forms: forms,
                        type: type,
                        hasDefault: binding.initializer != nil,
                        isLet: variable.bindingSpecifier.tokenKind == .keyword(.let),
                        isOptional: type.map(Self.isOptional) ?? false,
                        binding: binding,
                        declaration: variable))
            }
        }
        return result
    }

    private static func stringArguments(_ attribute: AttributeSyntax) -> [String] {
        guard case .argumentList(let arguments) = attribute.arguments else { return [] }
        return arguments.compactMap { argument in
            argument.expression.as(StringLiteralExprSyntax.self)?.segments.trimmedDescription
        }
    }

    private static func argumentText(_ attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = attribute.arguments, !arguments.isEmpty else { return nil }
        return arguments.map { $0.expression.trimmedDescription }.joined(separator: ", ")
    }

    static func isOptional(_ type: TypeSyntax) -> Bool {
        type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
            || type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
    }

    /// Why this property's declared type cannot be archived, when the syntax alone says so.
    var unarchivableReason: String? {
        guard var type else { return nil }
        while let wrapped = type.as(OptionalTypeSyntax.self)?.wrappedType ?? type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self)?.wrappedType
            ?? type.as(AttributedTypeSyntax.self)?.baseType
        {
            type = wrapped
        }
        if type.is(FunctionTypeSyntax.self) { return "a function type" }
        if type.is(TupleTypeSyntax.self) { return "a tuple type" }
        if type.is(MetatypeTypeSyntax.self) { return "a metatype" }
        if let name = type.as(IdentifierTypeSyntax.self)?.name.text,
            ["Any", "AnyObject", "UnsafePointer", "UnsafeMutablePointer", "UnsafeRawPointer", "UnsafeMutableRawPointer",
             "OpaquePointer", "Task"].contains(name)
        {
            return "\(name), which has no archived form"
        }
        if type.is(SomeOrAnyTypeSyntax.self) { return "an existential or opaque type" }
        return nil
    }
}

extension VariableDeclSyntax {
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            if let attribute = element.as(AttributeSyntax.self), attribute.attributeName.trimmedDescription == name {
                return attribute
            }
        }
        return nil
    }
}

extension String {
    var trimmingBackticks: String { filter { $0 != "`" } }
}
