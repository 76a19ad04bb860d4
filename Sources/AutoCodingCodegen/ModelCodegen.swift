import AutoCodingCore

/// Swift `@AutoCoding` models inferred from archives: what `autocoding codegen` writes, callable from code.
///
/// One class per archived class seen across the graphs (Foundation classes map to Swift types). Property types
/// come from every instance's fields; a field with no single type keeps the archived graph value
/// (`ArchivedValue`), and ``Output/notes`` names the class and the field.
///
/// ```swift
/// let graph = try ArchiveGraph(contentsOf: "Document.archive")
/// let output = ModelCodegen.generate([(name: "Document.archive", graph: graph)])
/// print(output.source)
/// ```
public enum ModelCodegen {
    /// Generated Swift source and the notes on what it does not type or reproduce.
    public struct Output: Sendable {
        /// The Swift source: the model classes and `GeneratedModels.register()`.
        public var source: String
        /// One line per class that keeps a field as an `ArchivedValue`, with the reason.
        public var notes: [String]
    }

    /// Infers models from `graphs`, each named (by its file name, say) in the generated file's header.
    public static func generate(_ graphs: [(name: String, graph: ArchiveGraph)]) -> Output {
        var inference = ModelInference()
        for (name, graph) in graphs { inference.observe(graph, archive: name) }
        let source = ModelSource(inference: inference)
        return Output(source: source.render(sources: graphs.map(\.name)), notes: source.notes())
    }
}
