import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@AutoCoding`: archiving from stored properties for classes (two-phase decode, identity kept) and structs.
///
/// Classes get their members from the member role and their conformances from the extension role. The members
/// of a non-final class are overridable, so a hand-written subclass can add its own properties.
public struct AutoCodingMacro: MemberMacro, ExtensionMacro {
    // MARK: Members (classes)

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            if !declaration.is(StructDeclSyntax.self) {
                context.diagnose(Diagnostic(node: node, message: Message.notClassOrStruct))
            }
            return []  // Structs get everything from the extension role.
        }
        if optsOutOfEquality(node) {
            context.diagnose(Diagnostic(node: node, message: Message.equatableOnClass))
            return []
        }
        let properties = StoredProperty.all(in: classDecl.memberBlock.members)
        let problems = diagnostics(properties, isClass: true)
        guard problems.isEmpty else {
            problems.forEach(context.diagnose)
            return []
        }

        let name = classDecl.name.trimmedDescription
        let access = accessLevel(of: classDecl.modifiers)
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let staticKind = isFinal ? "static" : "class"
        let declaresInit = classDecl.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
        // The compiler lists `AutoCodingObject` only when the class does not conform yet: otherwise it inherits the
        // conformance from an `@AutoCoding` superclass, and its members override and extend the superclass's.
        let isSubclass = !protocols.contains { $0.trimmedDescription.hasSuffix("AutoCodingObject") }
        let override = isSubclass ? "override " : ""

        // What the class declares itself wins: the macro generates only the rest. Its own `encode(to:)` or
        // `decodeProperties(from:)` can call the generated helpers, as `[super initWithCoder:]` is called.
        let declared = declaredMembers(classDecl.memberBlock.members)
        let isNSObject = !isSubclass && inheritsNSObject(classDecl)
        var members: [DeclSyntax] = []
        if !declared.contains("codableProperties") {
            members.append(
                """
                /// The properties `@AutoCoding` archives for this class (superclass properties not included).
                \(raw: access)\(raw: override)\(raw: staticKind) var codableProperties: [(name: String, type: Any.Type)] {
                    \(raw: propertyTable(properties, typeName: name))
                }
                """)
        }
        if !declared.contains("init(autoCodingShell:)") {
            members.append(
                """
                /// Allocates an instance with default property values, to be filled by decoding.
                \(raw: access)required init(autoCodingShell: AutoCodingShell) {\(raw: isSubclass ? "\n    super.init(autoCodingShell: autoCodingShell)\n" : isNSObject ? "\n    super.init()\n" : "")}
                """)
        }
        if !declared.contains("init(from:)") {
            members.append(
                """
                /// Decodes an instance: allocates it, then fills its properties.
                \(raw: access)required convenience init(from decoder: any Decoder) throws {
                    self.init(autoCodingShell: AutoCodingShell())
                    try autoCodingWillDecode(from: decoder)
                    try decodeProperties(from: decoder)
                    try autoCodingDidDecode(from: decoder)
                }
                """)
        }
        members.append(
            """
            /// Encodes the archived properties\(raw: isSubclass ? ", the superclasses' first" : ""), as the generated `encode(to:)` does: for an `encode(to:)` of your own to call.
            \(raw: access)\(raw: override)func autoCodingEncode(to encoder: any Encoder) throws {
                \(raw: isSubclass ? "try super.autoCodingEncode(to: encoder)\n" : "")\(raw: encodeBody(properties))
            }
            """)
        members.append(
            """
            /// Reads the archived properties present in `decoder`\(raw: isSubclass ? ", the superclasses' first" : ""), as the generated `decodeProperties(from:)` does: for a `decodeProperties(from:)` of your own to call.
            \(raw: access)\(raw: override)func autoCodingDecodeProperties(from decoder: any Decoder) throws {
                \(raw: isSubclass ? "try super.autoCodingDecodeProperties(from: decoder)\n" : "")\(raw: decodeBody(properties, typeName: name))
            }
            """)
        // A subclass inherits `encode(to:)` and `decodeProperties(from:)`, which call the helpers (overridden above).
        if !isSubclass && !declared.contains("encode(to:)") {
            members.append(
                """
                /// Encodes the archived properties (``autoCodingEncode(to:)``).
                \(raw: access)func encode(to encoder: any Encoder) throws {
                    try autoCodingEncode(to: encoder)
                }
                """)
        }
        if !isSubclass && !declared.contains("decodeProperties(from:)") {
            members.append(
                """
                /// Reads the archived properties present in `decoder` (``autoCodingDecodeProperties(from:)``).
                \(raw: access)func decodeProperties(from decoder: any Decoder) throws {
                    try autoCodingDecodeProperties(from: decoder)
                }
                """)
        }
        // The hooks of a class that can be subclassed are its own methods, so that a subclass's overrides run.
        if !isSubclass && !isFinal {
            for (hook, parameter) in Self.hooks where !declared.contains("\(hook)(\(parameter.label):)") {
                members.append(
                    """
                    /// Does nothing; override it to act at this step.
                    \(raw: access)func \(raw: hook)(\(raw: parameter.label) \(raw: parameter.name): any \(raw: parameter.type)) throws {}
                    """)
            }
        }
        if isNSObject && !declared.contains("isEqual") {
            members.append(
                """
                /// Equal when archived as equivalent graphs: same class, same property values, same sharing.
                \(raw: access)override func isEqual(_ object: Any?) -> Bool {
                    guard let other = object as? \(raw: name) else { return false }
                    return AutoCodingSupport.isEqual(self, other)
                }
                """)
            members.append(
                """
                /// Hashes the class and the scalar property values.
                \(raw: access)override var hash: Int {
                    var hasher = Hasher()
                    AutoCodingSupport.hash(self, into: &hasher)
                    return hasher.finalize()
                }
                """)
        }
        if !declaresInit {
            // Declaring `init(autoCodingShell:)` would hide the implicit `init()`; keep it.
            members.append(isSubclass || isNSObject ? "\(raw: access)override init() {\n    super.init()\n}" : "\(raw: access)init() {}")
        }
        return members
    }

    // MARK: Conformances

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let missing = Set(protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" })
        if let classDecl = declaration.as(ClassDeclSyntax.self) {
            // The member role reports the problems; here they only stop the expansion.
            guard diagnostics(StoredProperty.all(in: classDecl.memberBlock.members), isClass: true).isEmpty,
                !optsOutOfEquality(node)
            else { return [] }
            let access = accessLevel(of: classDecl.modifiers)
            var extensions: [ExtensionDeclSyntax] = []
            if missing.contains("AutoCodingObject") {
                extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): AutoCodingObject {}"))
            }
            // Every conformance the macro declares is produced: one declared but left out (AutoCodingValue, or
            // Hashable with identity equality) crashes Swift 6.3 when the class is subclassed (swiftlang/swift#89151).
            if missing.contains("AutoCodingValue") {
                extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): AutoCodingValue {}"))
            }
            // An NSObject subclass is Hashable through `isEqual(_:)` and `hash`, which the member role overrides.
            if inheritsNSObject(classDecl) {
                return extensions
            }
            if missing.contains("Hashable") && identityEquality(node) {
                extensions.append(
                    try ExtensionDeclSyntax(
                        """
                        extension \(type.trimmed): Hashable {
                            /// Equal when the same instance.
                            \(raw: access)static func == (lhs: \(type.trimmed), rhs: \(type.trimmed)) -> Bool {
                                lhs === rhs
                            }
                            /// Hashes the instance's identity.
                            \(raw: access)func hash(into hasher: inout Hasher) {
                                hasher.combine(ObjectIdentifier(self))
                            }
                        }
                        """))
            } else if missing.contains("Hashable") {
                extensions.append(
                    try ExtensionDeclSyntax(
                        """
                        extension \(type.trimmed): Hashable {
                            /// Equal when archived as equivalent graphs: same class, same property values, same sharing.
                            \(raw: access)static func == (lhs: \(type.trimmed), rhs: \(type.trimmed)) -> Bool {
                                AutoCodingSupport.isEqual(lhs, rhs)
                            }
                            /// Hashes the class and the scalar property values.
                            \(raw: access)func hash(into hasher: inout Hasher) {
                                AutoCodingSupport.hash(self, into: &hasher)
                            }
                        }
                        """))
            }
            return extensions
        }
        guard let structDecl = declaration.as(StructDeclSyntax.self), missing.contains("AutoCodingValue") else { return [] }
        let properties = StoredProperty.all(in: structDecl.memberBlock.members)
        let problems = diagnostics(properties, isClass: false)
        guard problems.isEmpty else {
            problems.forEach(context.diagnose)
            return []
        }
        let access = accessLevel(of: structDecl.modifiers)
        let name = structDecl.name.trimmedDescription
        let decodable = properties.filter { !($0.isLet && $0.hasDefault) }
        let initBody = decodable.map { property -> String in
            let keys = property.keys.map { "\"\($0)\"" }.joined(separator: ", ")
            if property.hasDefault || property.isOptional {
                let prefix = property.hasDefault ? "" : "self.\(property.name) = nil\n"
                return prefix + "try AutoCodingSupport.decode(&self.\(property.name), from: container, keys: [\(keys)], in: \(name).self)"
            }
            return "self.\(property.name) = try AutoCodingSupport.decodeRequired(\(property.type?.trimmedDescription ?? "Never").self, from: container, keys: [\(keys)], in: \(name).self)"
        }.joined(separator: "\n")
        // Equality from the properties, as classes get it, unless the struct declares Equatable or Hashable itself
        // or opts out (`equatable: false`: a struct whose values are not meant to be compared, or compared otherwise).
        let declaresEquality = structDecl.inheritanceClause?.inheritedTypes.contains {
            ["Equatable", "Hashable"].contains($0.type.trimmedDescription.split(separator: ".").last.map(String.init) ?? "")
        } ?? false
        var equality: [ExtensionDeclSyntax] = []
        if missing.contains("Hashable") && !declaresEquality && !optsOutOfEquality(node) {
            equality.append(
                try ExtensionDeclSyntax(
                    """
                    extension \(type.trimmed): Hashable {
                        /// Equal when archived as equivalent graphs: same property values, same sharing.
                        \(raw: access)static func == (lhs: \(type.trimmed), rhs: \(type.trimmed)) -> Bool {
                            AutoCodingSupport.isEqualValue(lhs, rhs)
                        }
                        /// Hashes the scalar property values.
                        \(raw: access)func hash(into hasher: inout Hasher) {
                            AutoCodingSupport.hashValue(self, into: &hasher)
                        }
                    }
                    """))
        }
        return [
            try ExtensionDeclSyntax(
                """
                extension \(type.trimmed): AutoCodingValue {
                    /// The properties `@AutoCoding` archives.
                    \(raw: access)static var codableProperties: [(name: String, type: Any.Type)] {
                        \(raw: propertyTable(properties, typeName: name))
                    }
                    /// Decodes the archived properties; missing keys keep their default values.
                    \(raw: access)init(from decoder: any Decoder) throws {
                        let container = try AutoCodingSupport.reader(decoder)
                        \(raw: initBody)
                    }
                    /// Encodes the archived properties.
                    \(raw: access)func encode(to encoder: any Encoder) throws {
                        \(raw: encodeBody(properties))
                    }
                }
                """)
        ] + equality
    }

    // MARK: Generated code

    /// The hooks of ``AutoCodingObject``: name, and the argument label, name and type.
    private static let hooks: [(String, (label: String, name: String, type: String))] = [
        ("autoCodingWillEncode", ("to", "encoder", "Encoder")),
        ("autoCodingDidEncode", ("to", "encoder", "Encoder")),
        ("autoCodingWillDecode", ("from", "decoder", "Decoder")),
        ("autoCodingDidDecode", ("from", "decoder", "Decoder")),
    ]

    /// The members a type declares, as `name(label:)` for functions and initializers and `name` for properties
    /// (plus the bare name of every function).
    private static func declaredMembers(_ members: MemberBlockItemListSyntax) -> Set<String> {
        var names: Set<String> = []
        for member in members {
            if let function = member.decl.as(FunctionDeclSyntax.self) {
                let labels = function.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                names.insert("\(function.name.text)(\(labels))")
                names.insert(function.name.text)
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                let labels = initializer.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                names.insert("init(\(labels))")
            } else if let variable = member.decl.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    if let identifier = binding.pattern.as(IdentifierPatternSyntax.self) { names.insert(identifier.identifier.text) }
                }
            }
        }
        return names
    }

    /// Whether the class's superclass is `NSObject` (the first inherited type).
    private static func inheritsNSObject(_ classDecl: ClassDeclSyntax) -> Bool {
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else { return false }
        return first == "NSObject" || first == "Foundation.NSObject" || first == "ObjectiveC.NSObject"
    }

    private static func propertyTable(_ properties: [StoredProperty], typeName: String) -> String {
        let entries = properties.map { "(\"\($0.name)\", AutoCodingSupport.type(of: \\\(typeName).\($0.name)))" }
        return "[" + entries.joined(separator: ", ") + "]"
    }

    private static func encodeBody(_ properties: [StoredProperty]) -> String {
        guard !properties.isEmpty else { return "_ = encoder.container(keyedBy: AutoCodingKey.self)" }
        return (["var container = AutoCodingSupport.writer(encoder)"]
            + properties.map { property in
                let forms = property.forms.map { ", as: [\($0)]" } ?? ""
                return "try AutoCodingSupport.encode(self.\(property.name), to: &container, key: \"\(property.keys[0])\"\(forms))"
            })
            .joined(separator: "\n")
    }

    /// A class's properties are read into a local and stored back: `&self.property` would be a dynamically
    /// enforced exclusive access to the instance for the whole call, 2 % of a typed decode.
    private static func decodeBody(_ properties: [StoredProperty], typeName: String) -> String {
        guard !properties.isEmpty else { return "_ = try decoder.container(keyedBy: AutoCodingKey.self)" }
        return (["let container = try AutoCodingSupport.reader(decoder)"]
            + properties.map { property in
                let keys = property.keys.map { "\"\($0)\"" }.joined(separator: ", ")
                return "do {\nvar value = self.\(property.name)\ntry AutoCodingSupport.decode(&value, from: container, "
                    + "keys: [\(keys)], in: \(typeName).self)\nself.\(property.name) = value\n}"
            })
            .joined(separator: "\n")
    }

    private static func accessLevel(of modifiers: DeclModifierListSyntax) -> String {
        modifiers.contains { [.keyword(.public), .keyword(.open)].contains($0.name.tokenKind) } ? "public " : ""
    }

    private static func identityEquality(_ node: AttributeSyntax) -> Bool {
        booleanArgument("identityEquality", of: node, is: true)
    }

    /// `equatable: false`: no generated `==` and `hash(into:)` for a struct.
    private static func optsOutOfEquality(_ node: AttributeSyntax) -> Bool {
        booleanArgument("equatable", of: node, is: false)
    }

    /// Whether the attribute passes the literal `value` for `label`.
    private static func booleanArgument(_ label: String, of node: AttributeSyntax, is value: Bool) -> Bool {
        guard case .argumentList(let arguments) = node.arguments else { return false }
        let literal: Keyword = value ? .true : .false
        return arguments.contains {
            $0.label?.text == label
                && $0.expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(literal)
        }
    }

    // MARK: Diagnostics

    /// The problems that stop properties from being archived.
    private static func diagnostics(_ properties: [StoredProperty], isClass: Bool) -> [Diagnostic] {
        properties.compactMap { property in
            if let reason = property.unarchivableReason {
                return Diagnostic(
                    node: property.binding, message: Message.unarchivable(property.name, reason),
                    fixIt: FixIt(message: Message.markUncodable(property.name), changes: [
                        .replace(oldNode: Syntax(property.declaration), newNode: Syntax(markedUncodable(property.declaration)))
                    ]))
            }
            if isClass && property.isLet {
                return Diagnostic(node: property.binding, message: Message.letInClass(property.name))
            }
            if isClass && !property.hasDefault && !property.isOptional {
                return Diagnostic(node: property.binding, message: Message.needsDefault(property.name))
            }
            if !isClass && !property.hasDefault && !property.isOptional && property.type == nil {
                return Diagnostic(node: property.binding, message: Message.needsType(property.name))
            }
            return nil
        }
    }

    private static func markedUncodable(_ declaration: VariableDeclSyntax) -> VariableDeclSyntax {
        // The attribute takes over the declaration's leading trivia (newline, indentation).
        var marked = declaration.with(\.leadingTrivia, [])
        let attribute = AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier("Uncodable")))
            .with(\.leadingTrivia, declaration.leadingTrivia)
            .with(\.trailingTrivia, .space)
        marked.attributes.insert(.attribute(attribute), at: marked.attributes.startIndex)
        return marked
    }
}

/// The macro's diagnostics.
enum Message: DiagnosticMessage, FixItMessage {
    case notClassOrStruct
    case equatableOnClass
    case unarchivable(String, String)
    case letInClass(String)
    case needsDefault(String)
    case needsType(String)
    case markUncodable(String)

    var message: String {
        switch self {
        case .notClassOrStruct: "@AutoCoding applies to classes and structs"
        case .equatableOnClass:
            "'equatable: false' applies to structs; a class compares its properties, or its identity with 'identityEquality: true'"
        case .unarchivable(let name, let reason):
            "stored property '\(name)' cannot be archived: its type is \(reason); mark it @Uncodable to leave it out"
        case .letInClass(let name):
            "@AutoCoding fills a class after allocating it, so '\(name)' must be 'var' (or mark it @Uncodable)"
        case .needsDefault(let name):
            "@AutoCoding allocates the class before decoding it, so '\(name)' needs a default value or an optional type"
        case .needsType(let name): "'\(name)' needs a type annotation or a default value"
        case .markUncodable(let name): "Mark '\(name)' @Uncodable"
        }
    }

    var diagnosticID: MessageID {
        MessageID(domain: "AutoCoding", id: String("\(self)".prefix { $0 != "(" }))
    }
    var severity: DiagnosticSeverity { .error }
    var fixItID: MessageID { diagnosticID }
}
