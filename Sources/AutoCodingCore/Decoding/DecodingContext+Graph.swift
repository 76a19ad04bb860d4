import AutoCodingFast

/// The whole archive as a graph, for the values a typed decode keeps as they were archived: `ArchivedValue`
/// fields and objects of classes no Swift type maps.
extension DecodingContext {
    /// The whole archive as a graph, built the first time an unknown class is kept or a graph value decoded at
    /// `path`. This is the one reader that needs whole values, so it validates the whole file first
    /// (``ArchiveRecordTable/validatedView()``); when that fails, every such value fails with its reason.
    func resolver(at path: CodingPathNode) throws -> GraphResolver {
        let result: Result<GraphResolver, ArchiveError>
        if let built = resolverStorage {
            result = built
        } else {
            result = Result { () throws(ArchiveError) in try GraphResolver(view: table.validatedView()) }
            resolverStorage = result
            if case .success(let built) = result { built.link(instances) }
        }
        switch result {
        case .success(let built): return built
        case .failure(let error):
            throw DecodingError.archiveCorrupted("the archive cannot be read as a graph: \(error)", at: path)
        }
    }

    /// The graph value at `node`: an instance and everything it reaches (from the whole-archive graph, so one
    /// object is one ``ArchivedObject`` however often it is reached), a referenced scalar, or a value in place.
    func graphValue(_ node: Node, path: CodingPathNode) throws -> ArchivedValue {
        let value = try resolvedGraphValue(node, path: path)
        graphValuesHandedOut.append(value)
        return value
    }

    private func resolvedGraphValue(_ node: Node, path: CodingPathNode) throws -> ArchivedValue {
        if node.isNull { return .null }
        let resolver = try resolver(at: path)
        if let uid = node.uid { return resolver.resolve(ArchiveUID(uid)) }
        let value: ArchiveValue
        do {
            value = try table.validatedView().materialize(node.object)
        } catch {
            throw DecodingError.archiveCorrupted("\(error)", at: path)
        }
        // In place: a scalar stays in place; arrays and dictionaries resolve their UIDs.
        switch value {
        case .array, .dictionary: return resolver.resolve(value)
        default: return .inline(value)
        }
    }
}
