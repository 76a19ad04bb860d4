import AutoCodingFast

/// A graph value as a property of a Codable or `@AutoCoding` model: the field is kept exactly as archived
/// (its objects, classes, keys, sharing and cycles), for fields no single Swift type fits (a dictionary of
/// mixed values, a field holding several classes). ``KeyedArchiveDecoder`` and ``KeyedArchiveEncoder`` (and the
/// archivers built on them) read and write it; other coders throw, since a graph may be cyclic.
///
/// Objects reached through such a field are ``ArchivedObject``s. One that was also decoded as a typed class
/// instance (through another property) is written as that instance when encoded, so the two stay one object.
extension ArchivedValue: Codable {
    /// Reads the value where the archive decoder stands; `$null` is ``null``.
    public init(from decoder: any Decoder) throws {
        guard let archive = _ArchiveDecoder.opened(decoder) else {
            throw DecodingError.typeMismatch(ArchivedValue.self, .init(
                codingPath: decoder.codingPath,
                debugDescription: "ArchivedValue is read only from keyed archives (KeyedArchiveDecoder, KeyedUnarchiver)"))
        }
        self = try archive.context.graphValue(archive.node, path: archive.codingPathNode)
    }

    /// Writes the value; only the archive encoder can (see `EncodeKind.graphValue`).
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, .init(
            codingPath: encoder.codingPath,
            debugDescription: "ArchivedValue is written only into keyed archives (KeyedArchiveEncoder, KeyedArchiver)"))
    }
}
